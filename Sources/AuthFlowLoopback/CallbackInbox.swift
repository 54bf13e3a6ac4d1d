import AuthFlow
import Foundation

/// Hands the first matching callback from the listener's thread to the waiting task.
final class CallbackInbox: Sendable {
    private struct State: Sendable {
        var request: AuthorizationRequest?
        var delivered: String?
        var closed: AuthFlowError?
        var waiter: (id: UUID, continuation: CheckedContinuation<String, any Error>)?
    }

    private let state = LockedValue(State())

    func expect(_ request: AuthorizationRequest) {
        state.withLock { $0.request = request }
    }

    /// Whether the expected request asked for `response_mode=form_post`.
    var expectsFormPost: Bool {
        state.withLock { $0.request?.expectsFormPost ?? false }
    }

    /// Offers a request target (path and query). Returns true when it carried
    /// the expected state and is the first such request.
    func offer(target: String, state received: String?) -> Bool {
        let (accepted, waiter) = state.withLock { box -> (Bool, CheckedContinuation<String, any Error>?) in
            guard box.delivered == nil, box.closed == nil, let request = box.request, let received,
                  request.matchesState(received) else {
                return (false, nil)
            }
            box.delivered = target
            defer { box.waiter = nil }
            return (true, box.waiter?.continuation)
        }
        waiter?.resume(returning: target)
        return accepted
    }

    /// Resumes `continuation` with the callback once it has arrived (at once
    /// if it already has), or with the error the inbox was closed with.
    func wait(id: UUID, _ continuation: CheckedContinuation<String, any Error>) {
        let ready: Result<String, any Error>? = state.withLock { box in
            if let delivered = box.delivered { return .success(delivered) }
            if let closed = box.closed { return .failure(closed) }
            box.waiter = (id, continuation)
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    func cancel(id: UUID, with error: AuthFlowError) {
        let waiter = state.withLock { box -> CheckedContinuation<String, any Error>? in
            guard let waiter = box.waiter, waiter.id == id else { return nil }
            box.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(throwing: error)
    }

    /// Accepts no more callbacks: a task waiting now, and any that waits
    /// later, gets `error` unless a callback was already delivered.
    func close(with error: AuthFlowError) {
        let waiter = state.withLock { box -> CheckedContinuation<String, any Error>? in
            if box.closed == nil { box.closed = error }
            defer { box.waiter = nil }
            return box.waiter?.continuation
        }
        waiter?.resume(throwing: error)
    }
}
