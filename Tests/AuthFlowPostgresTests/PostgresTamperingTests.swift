#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowPostgres
import Crypto
import Foundation
import PostgresNIO
import Testing

/// What someone who can write the database but holds no encryption key can
/// and cannot do (the security model's "database access without the key").
@Suite("PostgreSQL: database write access without the key", .enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct PostgresTamperingTests {
    /// A signed-in session saved as `s` in a fresh table: the table's name, the table, and the ID token's claims.
    static func savedSession(_ provider: ProviderSession, _ database: PostgresClient) async throws -> (
        String, PostgresSessionTable, IDTokenClaims
    ) {
        let name = TestDatabase.freshTable()
        let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: name)
        let client = try await provider.client()
        let credentials = try await provider.signIn(client)
        let claims = try #require(credentials.idToken)
        try await table.store(sessionID: "s").save(SessionRecord(credentials: credentials, client: client))
        return (name, table, claims)
    }

    /// The unkeyed SHA-256 of (issuer, sub) that schema version 2 stored, and anyone can compute for a guessed user.
    static func unkeyedSubjectKey(_ claims: IDTokenClaims) -> Data {
        Data(SHA256.hash(data: Data("\(claims.issuer)\u{0}sub\u{0}\(claims.subject)".utf8)))
    }

    @Test("a guessed user does not link to a row: the identity keys are HMACs under a key derived from the encryption key")
    func identityKeysAreKeyed() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let (name, table, claims) = try await Self.savedSession(provider, database)

                // The hash anyone can compute of a guessed (issuer, sub) is not in the table.
                let guessed = Self.unkeyedSubjectKey(claims)
                let hex = guessed.map { String(format: "%02x", $0) }.joined()
                let keys = try await TestDatabase.texts(database, "SELECT encode(subject_key, 'hex') FROM \(unescaped: name)")
                #expect(keys.count == 1)
                #expect(keys != [hex])

                // After a key rotation, a back-channel logout still finds the row written under the previous key.
                let rotated = try PostgresSessionTable(
                    client: database, keys: try CredentialEncryptionKeys(current: TestDatabase.keyB, previous: [TestDatabase.keyA]),
                    name: name)
                #expect(try await rotated.endSessions(issuer: Issuer(stringLiteral: claims.issuer), subject: claims.subject, sid: nil) == 1)
                #expect(try await table.store(sessionID: "s").load() == nil)
            }
        }
    }

    @Test("a row of schema version 2 (unkeyed SHA-256 identity keys) is still ended by a back-channel logout")
    func unkeyedRowsOfVersion2() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let (name, table, claims) = try await Self.savedSession(provider, database)
                let unkeyed = Self.unkeyedSubjectKey(claims)
                try await database.query("UPDATE \(unescaped: name) SET subject_key = \(unkeyed)")
                #expect(try await table.endSessions(issuer: Issuer(stringLiteral: claims.issuer), subject: claims.subject, sid: nil) == 1)
            }
        }
    }

    @Test("an earlier sealed record written back over a sign-out's tombstone, or over a later record, does not open")
    func writtenBackRecordDoesNotOpen() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let name = TestDatabase.freshTable()
                let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: name)
                let client = try await provider.client()
                let store = try table.store(sessionID: "s")
                let first = SessionRecord(credentials: try await provider.signIn(client), client: client)
                try await store.save(first)
                let saved = try await TestDatabase.texts(
                    database, "SELECT encode(sealed, 'hex') || ' ' || generation FROM \(unescaped: name)")
                let parts = try #require(saved.first).split(separator: " ")
                let (sealedHex, generation) = (String(parts[0]), String(parts[1]))

                // Over a later record.
                try await store.save(SessionRecord(credentials: try await provider.signIn(client), client: client))
                try await database.query(
                    "UPDATE \(unescaped: name) SET sealed = decode(\(sealedHex), 'hex'), key_id = 'key-a' WHERE session_id = 's'")
                let overRecord = await #expect(throws: AuthFlowError.self) { try await store.load() }
                #expect(overRecord?.category == .storage)
                #expect(
                    overRecord?.message
                        == "the session s does not decrypt with the key key-a: the key is not the one it was written with, or the row was altered or written back"
                )

                // Over a sign-out's tombstone: the session stays ended, and no refresh is sent with the old record.
                try await store.delete()
                try await database.query(
                    """
                    UPDATE \(unescaped: name) SET sealed = decode(\(sealedHex), 'hex'), key_id = 'key-a', signed_out_at = NULL,
                        ended_reason = NULL WHERE session_id = 's'
                    """)
                let overTombstone = await #expect(throws: AuthFlowError.self) { try await store.load() }
                #expect(overTombstone?.category == .storage)
                let refreshes = provider.counter.refreshes
                await #expect(throws: AuthFlowError.self) { _ = try await AuthSession.restore(from: store, transport: provider.counter) }
                #expect(provider.counter.refreshes == refreshes)

                // What the key cannot prevent: the whole earlier row (its generation too) restored is a rollback
                // of the database, which the security model names as such.
                try await database.query("UPDATE \(unescaped: name) SET generation = \(Int64(generation)!) WHERE session_id = 's'")
                #expect(try await store.load()?.credentials.accessToken == first.credentials.accessToken)
            }
        }
    }

    @Test("one-time identifiers expire on the database's clock: an instance whose clock is behind does not let a replay through")
    func replayCacheOnOneClock() async throws {
        try await TestDatabase.withClient { database in
            let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable())
            for skew in [-600.0, 600.0] {
                // The instance computes a proof's expiry on its own clock, `skew` seconds from the database's.
                let cache = PostgresReplayCache(table: table, scope: "dpop", now: { Date().addingTimeInterval(skew) })
                let expiresAt = Date().addingTimeInterval(skew + 300)
                #expect(try await cache.firstUse(of: "jti-\(skew)", until: expiresAt))
                #expect(!(try await cache.firstUse(of: "jti-\(skew)", until: expiresAt)), "a replay at skew \(skew) s")
            }
            // Kept for (at most) the 300 s asked, from the database's now(): not 600 s longer, nor already expired.
            let left = try await TestDatabase.texts(
                database,
                "SELECT (extract(epoch FROM expires_at - now()) BETWEEN 0 AND 300)::text FROM \(unescaped: table.name)_seen")
            #expect(left == ["true", "true"])
        }
    }
}
#endif
