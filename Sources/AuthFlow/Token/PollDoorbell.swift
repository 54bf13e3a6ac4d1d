/// Wakes a polling loop before its interval is over: a CIBA ping (OpenID
/// CIBA Core 1.0 §10.2) says the result is ready, so the token request
/// should go out now rather than at the next poll.
///
/// One waiter at a time (the loop); a ring with nobody waiting is kept for
/// the next wait, and rings before that wait count once.
final class PollDoorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = LockedValue(State())

    /// Wakes the waiter, or the next one.
    func ring() {
        let waiter = state.withLock { state in
            defer { state.waiter = nil }
            if state.waiter == nil { state.rung = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns at the next ring (or at once after an unheard one), or when the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
