import AuthFlow
import Foundation
import NIOConcurrencyHelpers

/// Hands the first matching callback from the event loop to the waiting task.
final class CallbackInbox: Sendable {
    private struct State {
        var request: AuthorizationRequest?
        var delivered: String?
        var waiter: (id: UUID, continuation: CheckedContinuation<String, any Error>)?
    }

    private let state = NIOLockedValueBox(State())

    func expect(_ request: AuthorizationRequest) {
        state.withLockedValue { $0.request = request }
    }

    /// Whether the expected request asked for `response_mode=form_post`.
    var expectsFormPost: Bool {
        state.withLockedValue { $0.request?.expectsFormPost ?? false }
    }

    /// Offers a request target (path and query). Returns true when it carried
    /// the expected state and is the first such request.
    func offer(target: String, state received: String?) -> Bool {
        let (accepted, waiter) = state.withLockedValue { box -> (Bool, CheckedContinuation<String, any Error>?) in
            guard box.delivered == nil, let request = box.request, let received, request.matchesState(received) else {
                return (false, nil)
            }
            box.delivered = target
            defer { box.waiter = nil }
            return (true, box.waiter?.continuation)
        }
        waiter?.resume(returning: target)
        return accepted
    }

    func wait(id: UUID, _ continuation: CheckedContinuation<String, any Error>) {
        let ready: String? = state.withLockedValue { box in
            if let delivered = box.delivered { return delivered }
            box.waiter = (id, continuation)
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    func cancel(id: UUID, with error: AuthFlowError) {
        let waiter = state.withLockedValue { box -> CheckedContinuation<String, any Error>? in
            guard let waiter = box.waiter, waiter.id == id else { return nil }
            box.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(throwing: error)
    }
}

