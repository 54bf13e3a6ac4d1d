#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import PostgresNIO

/// PostgreSQL failures as `AuthFlowError`s. The message keeps the SQLSTATE
/// and the server's primary message, never the query, its values or the
/// connection settings (which hold the password).
enum DatabaseError {
    /// `error` from an operation on the table (`doing`: "read the session s1").
    static func map(_ error: any Error, doing: String) -> AuthFlowError {
        if let error = error as? AuthFlowError { return error }
        if error is CancellationError { return AuthFlowError(.cancelled, "cancelled while waiting to \(doing)") }
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError ?? transaction.commitError ?? transaction.beginError ?? transaction.rollbackError {
                return map(inner, doing: doing)
            }
        }
        guard let psql = error as? PSQLError else {
            if isPoolFailure(error) {
                return AuthFlowError(
                    .network, "PostgreSQL: cannot \(doing): no connection to the server could be made",
                    recovery: "Check that the PostgreSQL server is running and reachable.")
            }
            return AuthFlowError(.storage, "PostgreSQL: cannot \(doing)")
        }
        let state = psql.serverInfo?[.sqlState] ?? "-"
        let message = psql.serverInfo?[.message].map { ": \($0)" } ?? ""
        switch (psql.code, state) {
        case (.server, "55P03"):
            return AuthFlowError(
                .timeout, "PostgreSQL: cannot \(doing): the session is locked by another instance (lock_timeout)",
                recovery: "Another instance holds the session's lock; try again, or raise the lock timeout.")
        case (.server, "57014"):
            return AuthFlowError(.timeout, "PostgreSQL: cannot \(doing): the statement timed out")
        case (.server, "28P01"), (.server, "28000"):
            return AuthFlowError(
                .configuration, "PostgreSQL refused the credentials (SQLSTATE \(state))",
                recovery: "Check the user name and password of the PostgreSQL store.")
        case (.server, let state) where state.hasPrefix("57P") || state.hasPrefix("08"):
            return AuthFlowError(.network, "PostgreSQL: cannot \(doing): the server ended the connection (SQLSTATE \(state))\(message)")
        case (.server, let state):
            return AuthFlowError(.storage, "PostgreSQL: cannot \(doing) (SQLSTATE \(state))\(message)")
        case (.serverClosedConnection, _), (.clientClosedConnection, _), (.connectionError, _), (.uncleanShutdown, _):
            return AuthFlowError(.network, "PostgreSQL: cannot \(doing): the connection to the server was lost (\(psql.code))")
        default:
            return AuthFlowError(.network, "PostgreSQL: cannot \(doing) (\(psql.code))")
        }
    }

    /// The pool's own errors (its type is not exported): it gave up connecting.
    static func isPoolFailure(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)).hasSuffix("ConnectionPoolError")
    }

    /// Whether `error` means the connection is gone (the transaction with it).
    static func isConnectionLost(_ error: any Error) -> Bool {
        if let transaction = error as? PostgresTransactionError {
            return [transaction.closureError, transaction.commitError, transaction.beginError].contains {
                $0.map(isConnectionLost) ?? false
            }
        }
        if isPoolFailure(error) { return true }
        if let abandoned = error as? AuthFlowError { return abandoned.reason == .databaseNoAnswer }
        guard let psql = error as? PSQLError else { return false }
        switch psql.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown: return true
        case .server:
            let state = psql.serverInfo?[.sqlState] ?? ""
            return state.hasPrefix("57P") || state.hasPrefix("08")
        default: return false
        }
    }
}
#endif
