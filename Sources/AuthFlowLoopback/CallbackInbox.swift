import AuthFlow

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hands the first matching callback from the listener's thread to the waiting task.
final class CallbackInbox: Sendable {
    private struct State: Sendable {
        var expected: CallbackExpectation?
        /// A page served once at its path (the RP-initiated logout form).
        var oneTimePage: (path: String, response: Response)?
        /// Whether the one-time page has been served.
        var oneTimePageServed = false
        var delivered: String?
        var closed: AuthFlowError?
        var waiter: (id: UUID, continuation: CheckedContinuation<String, any Error>)?
    }

    private let state = LockedValue(State())

    func expect(_ expectation: CallbackExpectation) {
        state.withLock { $0.expected = expectation }
    }

    /// Whether the expected request asked for `response_mode=form_post`.
    var expectsFormPost: Bool {
        state.withLock { $0.expected?.expectsFormPost ?? false }
    }

    /// Serves `response` at `path` to the first GET, and never again.
    func serveOnce(_ response: Response, at path: String) {
        state.withLock {
            $0.oneTimePage = (path, response)
            $0.oneTimePageServed = false
        }
    }

    /// Whether the page given to ``serveOnce(_:at:)`` has been served.
    var oneTimePageServed: Bool {
        state.withLock { $0.oneTimePageServed }
    }

    /// The one-time page when `path` is its path (removing it), else nil.
    func takeOneTimePage(at path: String) -> Response? {
        state.withLock { box in
            guard let page = box.oneTimePage, page.path == path else { return nil }
            box.oneTimePage = nil
            box.oneTimePageServed = true
            return page.response
        }
    }

    /// Offers a request target (path and query). The first request that
    /// carries the expected state is delivered, whatever it holds; its
    /// verdict is the engine's own validation of it
    /// (``AuthFlow/AuthorizationRequest/validateCallback(_:)``,
    /// ``AuthFlow/EndSessionRequest/validateRedirect(_:)``), so the page the
    /// browser shows is the outcome the application will report.
    func offer(target: String, state received: String?) -> CallbackVerdict {
        let (verdict, waiter) = state.withLock { box -> (CallbackVerdict, CheckedContinuation<String, any Error>?) in
            guard box.delivered == nil, box.closed == nil, let expected = box.expected, let received,
                expected.matchesState(received)
            else {
                return (.ignored, nil)
            }
            box.delivered = target
            defer { box.waiter = nil }
            return (expected.verdict(target: target), box.waiter?.continuation)
        }
        waiter?.resume(returning: target)
        return verdict
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
