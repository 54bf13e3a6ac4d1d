#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowPostgres
import Foundation
import PostgresNIO
import Testing

/// What several API or backend instances share besides sessions: the end of
/// a user's sessions by a back-channel logout, and one-time identifiers.
@Suite("PostgreSQL back-channel logout and one-time identifiers", .enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct PostgresBackChannelTests {
    @Test("a back-channel logout by sub ends every session of that user at that issuer, on every instance, and nothing else")
    func endSessionsBySubject() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable())
                let client = try await provider.client()
                var issuer: Issuer = "https://unset.invalid"
                for id in ["phone", "laptop"] {
                    let credentials = try await provider.signIn(client)
                    issuer = try Issuer(#require(credentials.idToken?.issuer))
                    _ = try await AuthSession.start(client: client, credentials: credentials, store: try table.store(sessionID: id))
                }
                // A session without an ID token (no sub known) is not touched.
                var anonymous = try await provider.signIn(client)
                anonymous.idToken = nil
                try await table.store(sessionID: "robot").save(SessionRecord(credentials: anonymous, client: client))
                let rows = try await TestDatabase.texts(database, "SELECT t::text FROM \(unescaped: table.name) t")
                #expect(!rows.joined().contains("demo"), "the table holds keys, not the subject")

                #expect(try await table.endSessions(issuer: issuer, subject: "someone-else", sid: nil) == 0)
                #expect(try await table.endSessions(issuer: "https://other.example", subject: "demo", sid: nil) == 0)
                #expect(try await table.endSessions(issuer: issuer, subject: "demo", sid: "no-such-sid") == 0)
                let refreshesBefore = provider.counter.refreshes
                // Another instance (its own pool) ends them.
                let ended = try await TestDatabase.withClient { other in
                    try await PostgresSessionTable(client: other, keys: TestDatabase.keys, name: table.name)
                        .endSessions(issuer: issuer, subject: "demo", sid: nil)
                }
                #expect(ended == 2)
                #expect(try await table.store(sessionID: "phone").load() == nil)
                #expect(try await table.store(sessionID: "laptop").load() == nil)
                #expect(try await table.store(sessionID: "robot").load() != nil)
                let reasons = try await TestDatabase.texts(
                    database, "SELECT session_id || '=' || coalesce(ended_reason, '-') FROM \(unescaped: table.name) ORDER BY session_id")
                #expect(reasons == ["laptop=backchannel_logout", "phone=backchannel_logout", "robot=-"])
                // No refresh brings an ended session back.
                let restored = try await AuthSession.restore(from: try table.store(sessionID: "phone"), transport: provider.counter)
                #expect(restored == nil)
                #expect(provider.counter.refreshes == refreshesBefore)
                let none = await #expect(throws: AuthFlowError.self) {
                    try await table.endSessions(issuer: issuer, subject: nil, sid: nil)
                }
                #expect(none?.category == .configuration)
            }
        }
    }

    @Test("a one-time identifier is accepted once across instances, again after it expires, and purged when expired")
    func replayCache() async throws {
        try await TestDatabase.withClient { database in
            let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable())
            let cache = PostgresReplayCache(table: table, scope: "dpop")
            let later = Date().addingTimeInterval(300)
            #expect(try await cache.firstUse(of: "jti-1", until: later))
            let replayedElsewhere = try await TestDatabase.withClient { other in
                try await PostgresReplayCache(
                    table: PostgresSessionTable(client: other, keys: TestDatabase.keys, name: table.name), scope: "dpop"
                )
                .firstUse(of: "jti-1", until: later)
            }
            #expect(!replayedElsewhere)
            #expect(try await PostgresReplayCache(table: table, scope: "logout").firstUse(of: "jti-1", until: later), "scopes are apart")
            // Forgotten (its work failed): a first use again, in this scope only.
            try await cache.forget("jti-1")
            #expect(try await cache.firstUse(of: "jti-1", until: later))
            #expect(!(try await PostgresReplayCache(table: table, scope: "logout").firstUse(of: "jti-1", until: later)))
            // Twenty instances at once: exactly one first use.
            let firsts = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { try await cache.firstUse(of: "jti-2", until: later) } }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(firsts == 1)
            #expect(try await cache.firstUse(of: "jti-3", until: Date().addingTimeInterval(-1)))
            #expect(try await cache.firstUse(of: "jti-3", until: later), "an expired entry counts as unseen")
            _ = try await cache.firstUse(of: "jti-4", until: Date().addingTimeInterval(-1))
            try await table.purgeExpired()
            let left = try await TestDatabase.texts(database, "SELECT count(*)::text FROM \(unescaped: table.name)_seen")
            #expect(left == ["4"])
            let stored = try await TestDatabase.texts(database, "SELECT encode(key, 'escape') FROM \(unescaped: table.name)_seen")
            #expect(!stored.joined().contains("jti-"))
        }
    }
}
#endif
