package import AuthFlow

/// The helper's side: answers ``StoreHelperRequest``s from `channel` with
/// `store`, until `authflow` closes the pipe.
///
/// `lock` runs ``CredentialStore/withExclusiveAccess(_:)`` and answers the
/// requests that follow inside it, in the same task (a store's lease may be
/// task-local, as the PostgreSQL store's is), until `unlock`.
///
/// When the pipe closes inside the lock, `authflow` died (or was killed)
/// holding it, perhaps with a refresh request out whose reply it alone
/// had. The helper must then die as `authflow` would have in one process:
/// `abandon` is called (the helper exits there), so the database connection
/// drops and the transaction rolls back, and the refresh recorded in flight
/// stays recorded for the next holder to see. Ending the body by throwing
/// would not do: a store treats a thrown body as a refresh that failed in
/// plain sight, and clears that record.
package struct StoreHelperServer<Store: CredentialStore>: Sendable {
    private let store: Store
    private let probe: @Sendable () async throws -> Void
    private let channel: LineChannel
    private let abandon: @Sendable () -> Void

    package init(
        store: Store, channel: LineChannel, probe: @escaping @Sendable () async throws -> Void,
        abandon: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.channel = channel
        self.probe = probe
        self.abandon = abandon
    }

    /// Serves requests until the pipe closes or breaks.
    package func run() async {
        while let request = try? await channel.receive(StoreHelperRequest.self) {
            guard (try? await handle(request)) != nil else { return }
        }
    }

    private struct InputEnded: Error {}
    private struct BodyFailed: Error {}

    /// Answers one request. Throws ``InputEnded`` when the pipe closed or broke.
    private func handle(_ request: StoreHelperRequest) async throws {
        switch request.operation {
        case .probe: try await answer { try await probe() }
        case .load: try await answerWith { StoreHelperReply(record: try await store.load()) }
        case .save:
            guard let record = request.record else {
                return try reply(StoreHelperReply(error: StoreHelperFailure(AuthFlowError(.storage, "save names no record"))))
            }
            try await answer { try await store.save(record) }
        case .delete: try await answer { try await store.delete() }
        case .refreshWillStart: try await answer { try await store.refreshWillStart() }
        case .unlock: try reply(StoreHelperReply(error: StoreHelperFailure(AuthFlowError(.storage, "unlock without a lock"))))
        case .lock: try await locked()
        }
    }

    /// `lock`: the store's lock held while the requests up to `unlock` are answered.
    private func locked() async throws {
        do {
            try await store.withExclusiveAccess {
                try reply(StoreHelperReply())
                while true {
                    guard let next = try? await channel.receive(StoreHelperRequest.self) else {
                        abandon()
                        throw InputEnded()
                    }
                    if next.operation == .unlock {
                        if next.failed == true { throw BodyFailed() }
                        return
                    }
                    try await handle(next)
                }
            }
            try reply(StoreHelperReply())
        } catch is InputEnded {
            throw InputEnded()
        } catch is BodyFailed {
            // The work under the lock failed in `authflow`, which throws its own error.
            try reply(StoreHelperReply())
        } catch {
            // Refused before the lock was granted (the answer to `lock`), or
            // failed when it ended (the answer to `unlock`).
            try reply(StoreHelperReply(error: StoreHelperFailure(error)))
        }
    }

    private func answer(_ body: () async throws -> Void) async throws {
        try await answerWith {
            try await body()
            return StoreHelperReply()
        }
    }

    private func answerWith(_ body: () async throws -> StoreHelperReply) async throws {
        let result: StoreHelperReply
        do { result = try await body() } catch { result = StoreHelperReply(error: StoreHelperFailure(error)) }
        try reply(result)
    }

    private func reply(_ reply: StoreHelperReply) throws {
        do { try channel.send(reply) } catch { throw InputEnded() }
    }
}
