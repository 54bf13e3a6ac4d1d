#if PostgreSQL // the PostgreSQL package trait
public import AuthFlow
import Foundation

/// Database work with a deadline it cannot overrun.
///
/// PostgresNIO can leave a call waiting when the server stops answering: a
/// connection the server never closes, or a pool that keeps trying to
/// connect to a server that is down. At the deadline such a call is
/// abandoned (cancelled, its late result dropped) and the caller gets a
/// `timeout` error, so no refresh, sign-out or `authflow token` hangs on
/// the database.
enum Deadline {
    /// The result of `operation`, or a `timeout` error after `seconds`.
    ///
    /// - Parameter doing: what the operation does, for the error ("read the session s1").
    static func run<T: Sendable>(
        seconds: TimeInterval, doing: String, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.begin(continuation)
                let work = Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
                    race.finish(.failure(timeout(seconds, doing: doing)))
                }
                race.track(work: work, timer: timer)
            }
        } onCancel: {
            race.cancel()
        }
    }

    /// The error of a call abandoned at its deadline.
    static func timeout(_ seconds: TimeInterval, doing: String) -> AuthFlowError {
        AuthFlowError(
            .timeout, "PostgreSQL: cannot \(doing): no answer within \(seconds.formatted()) s", reason: .databaseNoAnswer,
            recovery: "Check that the PostgreSQL server is running and answering.")
    }

    /// The first of the work and the timer to finish resumes the caller; the
    /// other is cancelled and its outcome dropped.
    private final class Race<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var tasks: [Task<Void, Never>] = []
            var cancelled = false
        }
        private let state = LockedValue(State())

        func begin(_ continuation: CheckedContinuation<T, any Error>) {
            state.withLock { $0.continuation = continuation }
        }

        /// Keeps the tasks to cancel; cancels them at once when the race is
        /// already over or the caller was cancelled meanwhile.
        func track(work: Task<Void, Never>, timer: Task<Void, Never>) {
            let (over, cancelled) = state.withLock { state in
                state.tasks = [work, timer]
                return (state.continuation == nil, state.cancelled)
            }
            if over {
                work.cancel()
                timer.cancel()
            } else if cancelled {
                work.cancel()
            }
        }

        func finish(_ result: Result<T, any Error>) {
            let (continuation, tasks) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, state.tasks)
            }
            guard let continuation else { return }
            for task in tasks { task.cancel() }
            continuation.resume(with: result)
        }

        func cancel() {
            let tasks = state.withLock { state in
                state.cancelled = true
                return state.tasks
            }
            // The work sees the cancellation and ends with its own error
            // (PostgresNIO's, mapped by the caller); the timer stays to bound
            // work that ignores it.
            tasks.first?.cancel()
        }
    }
}

extension AuthFlowError.Reason {
    /// The PostgreSQL server did not answer within the store's
    /// `queryTimeout` (or gave no connection): the call was abandoned.
    public static let databaseNoAnswer = AuthFlowError.Reason(rawValue: "database_no_answer")
}
#endif
