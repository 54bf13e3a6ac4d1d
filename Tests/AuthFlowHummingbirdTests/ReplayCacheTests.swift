#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowTestSupport
import AuthFlowHummingbird
import Foundation
import Testing

/// The DPoP replay cache: one client that sends proofs as fast as it can
/// fills its own budget, never the others'.
@Suite("Replay cache budgets")
struct ReplayCacheTests {
    @Test("one key at its budget is refused; another key is still recorded; a replay is still a replay")
    func budgetPerKey() async throws {
        let cache = MemoryReplayCache(capacity: 100, capacityPerKey: 3)
        let later = Date().addingTimeInterval(120)
        for index in 0..<3 { #expect(try await cache.firstUse(of: "keyA jti-\(index)", until: later)) }
        let full = await #expect(throws: ReplayCacheFull.self) { try await cache.firstUse(of: "keyA jti-3", until: later) }
        #expect(full?.perKey == true && full?.description == "the replay cache holds as many identifiers as it may for this key")
        #expect(try await cache.firstUse(of: "keyA jti-0", until: later) == false)
        #expect(try await cache.firstUse(of: "keyB jti-0", until: later))
        // Forgetting one of A's frees one place for A (through the protocol, as the middleware calls it).
        let store: any ReplayCache = cache
        try await store.forget("keyA jti-1")
        #expect(try await cache.firstUse(of: "keyA jti-3", until: later))
    }

    @Test("all keys together stop at the capacity")
    func capacity() async throws {
        let cache = MemoryReplayCache(capacity: 4, capacityPerKey: 3)
        let later = Date().addingTimeInterval(120)
        for identifier in ["a 1", "a 2", "b 1", "c 1"] { #expect(try await cache.firstUse(of: identifier, until: later)) }
        let full = await #expect(throws: ReplayCacheFull.self) { try await cache.firstUse(of: "d 1", until: later) }
        #expect(full?.perKey == false && full?.description == "the replay cache is full")
    }

    @Test("through the API: a client that floods gets 503 once its budget is used; another client's requests still pass")
    func floodingClientDeniesOnlyItself() async throws {
        try await TestAPI.with(TestAPI.Changes(replayCache: MemoryReplayCache(capacity: 1_000, capacityPerKey: 5))) { api in
            let flooder = DPoPKey()
            let flooderToken = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(flooder.thumbprint)])]))
            for _ in 0..<5 {
                let proof = try flooder.proof(method: "GET", url: api.items, accessToken: flooderToken)
                #expect(try await api.send(authorization: "DPoP \(flooderToken)", dpop: [proof]).status == 200)
            }
            let refused = try await api.send(
                authorization: "DPoP \(flooderToken)", dpop: [try flooder.proof(method: "GET", url: api.items, accessToken: flooderToken)])
            #expect(refused.status == 503)
            let other = DPoPKey()
            let otherToken = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(other.thumbprint)])]))
            for _ in 0..<5 {
                let proof = try other.proof(method: "GET", url: api.items, accessToken: otherToken)
                #expect(try await api.send(authorization: "DPoP \(otherToken)", dpop: [proof]).status == 200)
            }
        }
    }
}
#endif
