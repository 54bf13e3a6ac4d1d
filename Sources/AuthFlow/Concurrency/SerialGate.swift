/// Runs async bodies one at a time in this process, in the order they
/// arrive: what a session holds beside its store's lock, because a store
/// that lives in one process (memory, the Keychain) has no lock of its own
/// and a session's refreshes for several resources spend one refresh token.
package final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var nextID = 0
        /// Waiters in arrival order; each is resumed with true to enter, or false when its task was cancelled.
        var waiters: [(id: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    }

    private let state = LockedValue(State())

    package init() {}

    /// Runs `body` once every body that arrived before it has finished.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it
    ///   waits (the gate is then left to the others); `body`'s error.
    package func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let entered = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let enter = state.withLock { state in
                    if Task.isCancelled { return false as Bool? }
                    if state.busy {
                        state.waiters.append((id, continuation))
                        return nil
                    }
                    state.busy = true
                    return true
                }
                if let enter { continuation.resume(returning: enter) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
        guard entered else { throw CancellationError() }
        defer {
            let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard !state.waiters.isEmpty else {
                    state.busy = false
                    return nil
                }
                return state.waiters.removeFirst().continuation
            }
            next?.resume(returning: true)
        }
        return try await body()
    }
}
