#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowPostgres
import Crypto
import Foundation
import PostgresNIO
import Testing

@Suite("PostgreSQL credential store", .serialized, .enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct PostgresStoreTests {
    @Test("twelve sessions on two instances (two pools) refreshing at once make exactly one refresh")
    func oneRefreshAcrossInstances() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { first in
                try await TestDatabase.withClient { second in
                    let name = TestDatabase.freshTable()
                    let tables = try [first, second].map { try PostgresSessionTable(client: $0, keys: TestDatabase.keys, name: name) }
                    let client = try await provider.client()
                    let credentials = try await provider.signIn(client)
                    _ = try await AuthSession.start(
                        client: client, credentials: credentials, store: try tables[0].store(sessionID: "robot-7"))
                    var sessions: [AuthSession] = []
                    for index in 0..<12 {
                        let store = try tables[index % 2].store(sessionID: "robot-7")
                        sessions.append(try #require(try await AuthSession.restore(from: store, transport: provider.counter)))
                    }
                    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                        for session in sessions { group.addTask { try await session.refreshNow().accessToken } }
                        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                    }
                    #expect(provider.counter.refreshes == 1)
                    #expect(tokens.count == 1 && !tokens.contains(credentials.accessToken))
                    let stored = try await tables[1].store(sessionID: "robot-7").load()
                    #expect(stored?.credentials.accessToken == tokens.first)
                }
            }
        }
    }

    @Test("a token for another resource: twelve sessions on two instances ask at once, one refresh; it is sealed in the row")
    func oneResourceTokenAcrossInstances() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { first in
                try await TestDatabase.withClient { second in
                    let name = TestDatabase.freshTable()
                    let tables = try [first, second].map { try PostgresSessionTable(client: $0, keys: TestDatabase.keys, name: name) }
                    let client = try await provider.client()
                    let credentials = try await provider.signIn(client)
                    _ = try await AuthSession.start(
                        client: client, credentials: credentials, store: try tables[0].store(sessionID: "robot-8"))
                    let billing = try ResourceIdentifier(URL(string: "https://api.example.com/billing")!)
                    var sessions: [AuthSession] = []
                    for index in 0..<12 {
                        let store = try tables[index % 2].store(sessionID: "robot-8")
                        sessions.append(try #require(try await AuthSession.restore(from: store, transport: provider.counter)))
                    }
                    let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                        for session in sessions { group.addTask { try await session.freshAccessToken(for: billing) } }
                        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                    }
                    #expect(provider.counter.refreshes == 1)
                    #expect(tokens.count == 1)
                    let stored = try #require(try await tables[1].store(sessionID: "robot-8").load())
                    #expect(stored.resourceToken(for: billing)?.accessToken == tokens.first)
                    #expect(stored.credentials.accessToken == credentials.accessToken)
                    #expect(stored.credentials.token.refreshToken != credentials.token.refreshToken)
                    // The rotated refresh token is the one every instance uses next.
                    _ = try await sessions[5].refreshNow()
                    #expect(provider.counter.refreshes == 2)
                }
            }
        }
    }

    @Test("a sign-out leaves a tombstone that a refresh waiting on another instance respects")
    func tombstoneWins() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { first in
                try await TestDatabase.withClient { second in
                    let name = TestDatabase.freshTable()
                    let tableA = try PostgresSessionTable(client: first, keys: TestDatabase.keys, name: name)
                    let tableB = try PostgresSessionTable(client: second, keys: TestDatabase.keys, name: name)
                    let client = try await provider.client()
                    let storeA = try tableA.store(sessionID: "user-1")
                    _ = try await AuthSession.start(client: client, credentials: try await provider.signIn(client), store: storeA)
                    let sessionB = try #require(
                        try await AuthSession.restore(from: tableB.store(sessionID: "user-1"), transport: provider.counter))
                    let (entered, gate) = (Gate(), Gate())
                    let signOut = Task {
                        try await storeA.withExclusiveAccess {
                            await entered.open()
                            await gate.wait()
                            try await storeA.delete()
                        }
                    }
                    await entered.wait()
                    let refresh = Task { try await sessionB.refreshNow() }
                    try await TestDatabase.waitForLockWaiters(first, count: 1)
                    await gate.open()
                    try await signOut.value
                    let error = await #expect(throws: AuthFlowError.self) { try await refresh.value }
                    #expect(error?.category == .reauthenticationRequired && error?.message == "the session was signed out")
                    #expect(provider.counter.refreshes == 0)
                    #expect(try await tableB.store(sessionID: "user-1").load() == nil)
                    let row = try await TestDatabase.texts(
                        first,
                        "SELECT concat_ws(' ', key_id IS NULL, sealed IS NULL, signed_out_at IS NOT NULL, ended_reason) FROM \(unescaped: name)"
                    )
                    #expect(row == ["t t t signed_out"])
                }
            }
        }
    }

    @Test("a refresh whose instance died after sending it ends the session with reason refresh_reply_lost, sending nothing")
    func lostReply() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable())
                let store = try table.store(sessionID: "device-9")
                let client = try await provider.client()
                let credentials = try await provider.signIn(client)
                _ = try await AuthSession.start(client: client, credentials: credentials, store: store)
                // What an instance that died mid-refresh leaves: its refresh recorded
                // as in flight (committed), the provider's rotation done, nothing stored.
                try await database.query(
                    """
                    INSERT INTO \(unescaped: table.name)_refreshes (session_id, attempt, instance, from_generation)
                    VALUES ('device-9', \(UUID()), 'dead-host:4242', 1)
                    """)
                _ = try await client.refresh(credentials)
                #expect(provider.counter.refreshes == 1)
                let next = try #require(try await AuthSession.restore(from: store, transport: provider.counter))
                let error = await #expect(throws: AuthFlowError.self) { try await next.refreshNow() }
                #expect(error?.category == .reauthenticationRequired && error?.reason == .refreshReplyLost)
                #expect(error?.message.hasPrefix("a refresh of the session device-9 started at ") == true)
                #expect(error?.message.contains(" on dead-host:4242 never stored its result") == true)
                #expect(error?.message.contains("never stored its result") == true)
                #expect(provider.counter.refreshes == 1)
                #expect(try await store.load() == nil)
                let reason = try await TestDatabase.texts(database, "SELECT ended_reason FROM \(unescaped: table.name)")
                #expect(reason == ["refresh_reply_lost"])
            }
        }
    }

    @Test("a refresh whose save failed is saved again by the session that sent it: its own in-flight marker is not a lost reply")
    func ownPendingSaveIsNotALostReply() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable())
                let store = try table.store(sessionID: "device-7")
                let client = try await provider.client()
                let credentials = try await provider.signIn(client)
                let session = try await AuthSession.start(client: client, credentials: credentials, store: store, leeway: 0)
                // Writes of a record fail while the flag table has a row (the database refuses them, the connection lives).
                try await database.query("CREATE TABLE \(unescaped: table.name)_fail (flag int)")
                try await database.query(
                    """
                    CREATE FUNCTION \(unescaped: table.name)_refuse() RETURNS trigger AS $$
                    BEGIN
                        IF EXISTS (SELECT 1 FROM \(unescaped: table.name)_fail) THEN RAISE EXCEPTION 'writes refused by the test'; END IF;
                        RETURN NEW;
                    END $$ LANGUAGE plpgsql
                    """)
                try await database.query(
                    """
                    CREATE TRIGGER refuse BEFORE UPDATE ON \(unescaped: table.name)
                    FOR EACH ROW EXECUTE FUNCTION \(unescaped: table.name)_refuse()
                    """)
                let failName = table.name + "_fail"
                provider.counter.beforeRefresh {
                    // The refresh is recorded in flight (committed) by now; its save will fail.
                    try await database.query("INSERT INTO \(unescaped: failName) VALUES (1)")
                }
                let refreshed = try await session.refreshNow()
                #expect(provider.counter.refreshes == 1)
                #expect(refreshed.accessToken != credentials.accessToken)
                #expect(try await store.load()?.credentials.accessToken == credentials.accessToken, "the save failed")
                let markers = try await TestDatabase.texts(database, "SELECT instance FROM \(unescaped: table.name)_refreshes")
                #expect(markers.count == 1, "the refresh is still recorded in flight")

                provider.counter.beforeRefresh {}
                try await database.query("DELETE FROM \(unescaped: failName)")
                try await session.savePendingCredentials()
                #expect(try await store.load()?.credentials.accessToken == refreshed.accessToken)
                #expect(try await TestDatabase.texts(database, "SELECT instance FROM \(unescaped: table.name)_refreshes").isEmpty)
                let ended = try await TestDatabase.texts(
                    database, "SELECT coalesce(ended_reason, '-') FROM \(unescaped: table.name)")
                #expect(ended == ["-"])
                // Another instance (another store) opens the saved session and refreshes with the new refresh token.
                let other = try #require(
                    try await AuthSession.restore(from: try table.store(sessionID: "device-7"), transport: provider.counter))
                _ = try await other.refreshNow()
                #expect(provider.counter.refreshes == 2)
            }
        }
    }

    @Test("a row never holds a token in plain text: the record is sealed with AES-GCM under the key's ID")
    func encryptedAtRest() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable())
                let client = try await provider.client()
                let credentials = try await provider.signIn(client)
                let store = try table.store(sessionID: "user-2")
                try await store.save(SessionRecord(credentials: credentials, client: client))
                let rows = try await TestDatabase.texts(database, "SELECT t::text FROM \(unescaped: table.name) t")
                let refresh = try #require(credentials.token.refreshToken)
                #expect(rows.count == 1)
                for secret in [credentials.accessToken, refresh, try #require(credentials.token.idToken)] {
                    #expect(!rows[0].contains(secret))
                    #expect(!rows[0].contains(Data(secret.utf8).map { String(format: "%02x", $0) }.joined()))
                }
                #expect(rows[0].contains("key-a"))
                #expect(try await store.load()?.credentials.token.refreshToken == credentials.token.refreshToken)
            }
        }
    }

    @Test(
        "a row under an unknown key ID is a configuration error; another key under the same ID a storage error; rotation reads and rewrites"
    )
    func keys() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                let name = TestDatabase.freshTable()
                let client = try await provider.client()
                let record = SessionRecord(credentials: try await provider.signIn(client), client: client)
                try await PostgresSessionTable(client: database, keys: TestDatabase.keys, name: name).store(sessionID: "s").save(record)

                let onlyB = try PostgresSessionTable(
                    client: database, keys: try CredentialEncryptionKeys(current: TestDatabase.keyB), name: name)
                let unknown = await #expect(throws: AuthFlowError.self) { try await onlyB.store(sessionID: "s").load() }
                #expect(unknown?.category == .configuration)
                #expect(unknown?.message == "the session s is encrypted with the key key-a, which is not among the keys given")

                let impostor = try CredentialEncryptionKey(id: "key-a", key: SymmetricKey(size: .bits256))
                let wrong = try PostgresSessionTable(client: database, keys: try CredentialEncryptionKeys(current: impostor), name: name)
                let failed = await #expect(throws: AuthFlowError.self) { try await wrong.store(sessionID: "s").load() }
                #expect(failed?.category == .storage)
                #expect(
                    failed?.message
                        == "the session s does not decrypt with the key key-a: the key is not the one it was written with, or the row was altered or written back"
                )

                let rotated = try PostgresSessionTable(
                    client: database, keys: try CredentialEncryptionKeys(current: TestDatabase.keyB, previous: [TestDatabase.keyA]),
                    name: name)
                let store = try rotated.store(sessionID: "s")
                #expect(try await store.load()?.credentials.accessToken == record.credentials.accessToken)
                try await store.save(record)
                #expect(try await TestDatabase.texts(database, "SELECT key_id FROM \(unescaped: name)") == ["key-b"])
                #expect(try await onlyB.store(sessionID: "s").load()?.credentials.accessToken == record.credentials.accessToken)

                // A row copied onto another session does not open there.
                try await database.query(
                    "INSERT INTO \(unescaped: name) (session_id, key_id, sealed) SELECT 'other', key_id, sealed FROM \(unescaped: name) WHERE session_id = 's'"
                )
                let moved = await #expect(throws: AuthFlowError.self) { try await onlyB.store(sessionID: "other").load() }
                #expect(moved?.category == .storage)

                let short = #expect(throws: AuthFlowError.self) { try CredentialEncryptionKey(id: "k", key: SymmetricKey(size: .bits128)) }
                #expect(short?.message == "the encryption key k has 128 bits; it must have 256 (32 bytes)")
                #expect(!String(describing: TestDatabase.keyA).contains("key: "))
            }
        }
    }

    @Test("the tables are created in an empty database, migrating again changes nothing, a newer schema is refused")
    func migration() async throws {
        try await TestDatabase.withClient { database in
            let name = TestDatabase.freshTable()
            let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: name)
            try await table.migrate()
            try await table.migrate()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { try await table.migrate() } }
                try await group.waitForAll()
            }
            #expect(
                try await TestDatabase.texts(database, "SELECT version::text FROM authflow_schema_versions WHERE table_name = \(name)") == [
                    "2"
                ])
            #expect(try await table.store(sessionID: "nobody").load() == nil)
            try await database.query("UPDATE authflow_schema_versions SET version = 99 WHERE table_name = \(name)")
            let newer = await #expect(throws: AuthFlowError.self) { try await table.migrate() }
            #expect(newer?.category == .configuration)
            #expect(newer?.message == "the table \(name) has schema version 99; this version of AuthFlow knows 2")
            let bad = #expect(throws: AuthFlowError.self) {
                try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: "x; DROP TABLE y")
            }
            #expect(bad?.category == .configuration)
        }
    }

    @Test("a lock held by another instance beyond lock_timeout is a timeout error naming the session")
    func lockTimeout() async throws {
        try await TestDatabase.withClient { database in
            let name = TestDatabase.freshTable()
            var options = PostgresSessionTable.Options()
            options.lockTimeout = 0.2
            let holder = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: name).store(sessionID: "busy")
            let waiter = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: name, options: options).store(
                sessionID: "busy")
            let (entered, gate) = (Gate(), Gate())
            let held = Task {
                try await holder.withExclusiveAccess {
                    await entered.open()
                    await gate.wait()
                }
            }
            await entered.wait()
            let error = await #expect(throws: AuthFlowError.self) { try await waiter.withExclusiveAccess { 1 } }
            #expect(error?.category == .timeout)
            #expect(error?.message == "PostgreSQL: cannot lock the session busy: the session is locked by another instance (lock_timeout)")
            await gate.open()
            try await held.value
        }
    }
}

/// A gate a test opens once.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
#endif
