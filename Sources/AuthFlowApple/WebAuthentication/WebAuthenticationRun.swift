package import AuthFlow
package import Foundation

/// Runs one web-authentication session to its single answer, whatever the
/// system does:
///
/// - the caller is resumed exactly once: a completion handler called twice,
///   or late (after the task was cancelled), is ignored;
/// - cancelling the calling task answers `cancelled` at once and then
///   cancels the session, without waiting for a completion handler that
///   Apple does not promise to call after `cancel()`;
/// - a session that cannot start (`canStart` false, `start()` false, no
///   presentation context) and any failure other than the user closing the
///   sheet are `configuration` errors that keep the system's error
///   (``WebAuthenticationErrors``).
///
/// - a second session while one is on screen is refused with
///   ``WebAuthenticationErrors/alreadyInProgress`` before it is created
///   (``WebAuthenticationGate``).
///
/// `makeSession` creates the session with the completion handler to give it;
/// `ending` tells how a framework error ended the session
/// (``WebAuthenticationEnding/init(_:)`` reads the system's `NSError`).
@MainActor
package func runWebAuthentication(
    callback: CallbackMatch, gate: WebAuthenticationGate = .shared,
    makeSession: (_ completion: @escaping @Sendable (URL?, (any Error)?) -> Void) throws -> any WebAuthenticationDriver,
    ending: @escaping @Sendable (any Error) -> WebAuthenticationEnding = WebAuthenticationEnding.init
) async throws -> URL {
    try await gate.run {
        try await runOneWebAuthentication(callback: callback, makeSession: makeSession, ending: ending)
    }
}

@MainActor
private func runOneWebAuthentication(
    callback: CallbackMatch,
    makeSession: (_ completion: @escaping @Sendable (URL?, (any Error)?) -> Void) throws -> any WebAuthenticationDriver,
    ending: @escaping @Sendable (any Error) -> WebAuthenticationEnding
) async throws -> URL {
    let answer = WebAuthenticationAnswer()
    let holder = WebAuthenticationDriverHolder()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
            guard answer.install(continuation) else { return }
            let session: any WebAuthenticationDriver
            do {
                session = try makeSession { url, error in
                    if let url {
                        answer.resume(.success(url))
                    } else {
                        answer.resume(.failure(WebAuthenticationErrors.error(error.map(ending) ?? .nothing, callback: callback)))
                    }
                }
            } catch {
                answer.resume(.failure(error))
                return
            }
            holder.session = session
            guard session.canStart, session.start() else {
                answer.resume(.failure(WebAuthenticationErrors.cannotStart(callback: callback)))
                return
            }
        }
    } onCancel: {
        answer.resume(.failure(WebAuthenticationErrors.taskCancelled))
        Task { @MainActor in holder.session?.cancel() }
    }
}

/// The session being run, for the cancellation handler.
@MainActor
final class WebAuthenticationDriverHolder {
    var session: (any WebAuthenticationDriver)?
}

/// The single answer of a session: the first result wins, later ones are
/// dropped, and a result that comes before the continuation is installed
/// (a task cancelled before it started) is delivered when it is.
package final class WebAuthenticationAnswer: Sendable {
    private enum State: Sendable {
        case waiting(CheckedContinuation<URL, any Error>?)
        case answered(Result<URL, any Error>)
    }

    private let state = LockedValue(State.waiting(nil))

    package init() {}

    /// Installs the caller's continuation; false (after resuming it) when
    /// the answer is already known.
    func install(_ continuation: CheckedContinuation<URL, any Error>) -> Bool {
        let known: Result<URL, any Error>? = state.withLock { state in
            switch state {
            case .waiting:
                state = .waiting(continuation)
                return nil
            case .answered(let result): return result
            }
        }
        guard let known else { return true }
        continuation.resume(with: known)
        return false
    }

    /// Delivers `result` if it is the first; returns whether it was.
    @discardableResult
    package func resume(_ result: Result<URL, any Error>) -> Bool {
        let waiting: CheckedContinuation<URL, any Error>?? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return .none }
            state = .answered(result)
            return .some(continuation)
        }
        guard case .some(let continuation) = waiting else { return false }
        continuation?.resume(with: result)
        return true
    }
}
