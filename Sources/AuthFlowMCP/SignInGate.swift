#if MCP // the MCP package trait
/// Runs one sign-in, refresh or step-up at a time: the transport's requests
/// may interleave (its actor is reentrant), and two requests refused at
/// once must not open two browsers. A caller that finds the gate taken
/// waits for its turn, then finds the token the one before it obtained.
actor SignInGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` when no other body runs; the turn passes to the next
    /// waiter in arrival order when it returns or throws.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
#endif
