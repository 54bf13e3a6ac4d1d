#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Foundation
import PostgresNIO

/// A pooled connection lent to the caller for as long as its body runs,
/// taken from the pool within a deadline.
///
/// `PostgresClient.withConnection` waits for as long as the pool needs, and
/// a pool whose server is down keeps trying to connect. Here a task of its
/// own waits for the connection and lends it to the caller; when the
/// deadline comes first, the caller gets a `network` error (reason
/// `database_no_answer`) and the
/// connection, should it come later, goes straight back to the pool.
final class ConnectionLoan: Sendable {
    private struct State {
        var connection: PostgresConnection?
        var failure: (any Error)?
        var borrower: CheckedContinuation<PostgresConnection, any Error>?
        var lender: CheckedContinuation<Void, Never>?
        var returned = false
    }
    private let state = LockedValue(State())

    /// Runs `body` with a connection of `client`, waiting at most `seconds` for it.
    static func withConnection<T>(
        of client: PostgresClient, within seconds: TimeInterval, doing: String, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let loan = ConnectionLoan()
        let holder = Task {
            do {
                try await client.withConnection { connection in await loan.lend(connection) }
            } catch {
                loan.fail(error)
            }
        }
        let connection: PostgresConnection
        do {
            connection = try await Deadline.run(seconds: seconds, doing: doing) { try await loan.borrow() }
        } catch let error as AuthFlowError where error.reason == .databaseNoAnswer {
            loan.giveBack()
            holder.cancel()
            throw AuthFlowError(
                .network, "PostgreSQL: cannot \(doing): no connection to the server within \(seconds.formatted()) s",
                reason: .databaseNoAnswer, recovery: "Check that the PostgreSQL server is running and reachable.")
        } catch {
            loan.giveBack()
            holder.cancel()
            throw error
        }
        defer { loan.giveBack() }
        return try await body(connection)
    }

    /// In the pool's task: hands the connection over, then keeps it until it is given back.
    private func lend(_ connection: PostgresConnection) async {
        await withCheckedContinuation { (lender: CheckedContinuation<Void, Never>) in
            let (borrower, returned) = state.withLock { state in
                defer { state.borrower = nil }
                if state.returned { return (nil as CheckedContinuation<PostgresConnection, any Error>?, true) }
                state.connection = connection
                state.lender = lender
                return (state.borrower, false)
            }
            if returned {
                lender.resume()
            } else {
                borrower?.resume(returning: connection)
            }
        }
    }

    /// The pool gave up (its error reaches the borrower).
    private func fail(_ error: any Error) {
        let borrower = state.withLock { state in
            defer { state.borrower = nil }
            state.failure = error
            return state.borrower
        }
        borrower?.resume(throwing: error)
    }

    /// In the caller's task: the connection once the pool lends it.
    private func borrow() async throws -> PostgresConnection {
        try await withCheckedThrowingContinuation { borrower in
            let outcome: Result<PostgresConnection, any Error>? = state.withLock { state in
                if let connection = state.connection { return .success(connection) }
                if let failure = state.failure { return .failure(failure) }
                if state.returned { return .failure(CancellationError()) }
                state.borrower = borrower
                return nil
            }
            if let outcome { borrower.resume(with: outcome) }
        }
    }

    /// The caller is done (or gave up waiting): the connection goes back to the pool.
    private func giveBack() {
        let (lender, borrower) = state.withLock { state in
            defer {
                state.lender = nil
                state.borrower = nil
            }
            state.returned = true
            return (state.lender, state.borrower)
        }
        lender?.resume()
        borrower?.resume(throwing: CancellationError())
    }
}
#endif
