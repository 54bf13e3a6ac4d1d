#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowPostgres
import Foundation
import Logging
import PostgresNIO
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The database failing under the store: a connection dropped in the middle
/// of a refresh, and a server that accepts connections and never answers.
@Suite("PostgreSQL store faults", .enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct PostgresFaultTests {
    @Test("a connection dropped while the refresh request is out loses no write: the result is stored in a new transaction and works")
    func droppedMidRefresh() async throws {
        try await ProviderSession.with { provider in
            try await TestDatabase.withClient { database in
                var options = PostgresSessionTable.Options()
                options.queryTimeout = 5
                let table = try PostgresSessionTable(
                    client: database, keys: TestDatabase.keys, name: TestDatabase.freshTable(), options: options)
                let store = try table.store(sessionID: "drop-1")
                let client = try await provider.client()
                let credentials = try await provider.signIn(client)
                let session = try await AuthSession.start(client: client, credentials: credentials, store: store)
                let terminated = LockedCount()
                provider.counter.beforeRefresh {
                    // The lease's connection sits idle in its transaction (the
                    // row locked) while the refresh request is out: end it.
                    let ended = try await TestDatabase.texts(
                        database,
                        """
                        SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                        WHERE datname = current_database() AND state = 'idle in transaction' AND query LIKE \("%" + table.name + "%")
                        """)
                    terminated.add(ended.filter { $0 == "true" }.count)
                }
                let refreshed = try await session.refreshNow()
                #expect(terminated.value == 1)
                #expect(provider.counter.refreshes == 1)
                #expect(refreshed.accessToken != credentials.accessToken)
                let stored = try #require(try await store.load())
                #expect(stored.credentials.accessToken == refreshed.accessToken)
                #expect(stored.credentials.token.refreshToken == refreshed.token.refreshToken)
                #expect(try await TestDatabase.texts(database, "SELECT count(*)::text FROM \(unescaped: table.name)_refreshes") == ["0"])
                // The stored refresh token is the provider's current one: another instance renews from it.
                provider.counter.beforeRefresh {}
                let other = try #require(try await AuthSession.restore(from: store, transport: provider.counter))
                let again = try await other.refreshNow()
                #expect(again.accessToken != refreshed.accessToken)
                #expect(provider.counter.refreshes == 2)
            }
        }
    }

    @Test("a server that accepts connections and never answers is a network error (database_no_answer) at the deadline, not a hang")
    func silentServer() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: silent.port, username: "nobody", password: "unused-pw", database: "none", tls: .disable)
        configuration.options.connectTimeout = .seconds(30)
        let database = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "silent"))
        let running = Task { await database.run() }
        defer { running.cancel() }
        var options = PostgresSessionTable.Options()
        options.queryTimeout = 1
        options.lockTimeout = 1
        let table = try PostgresSessionTable(client: database, keys: TestDatabase.keys, name: "silent_sessions", options: options)
        let store = try table.store(sessionID: "s1")
        for operation in ["load", "withExclusiveAccess"] {
            let error = await #expect(throws: AuthFlowError.self, "\(operation)") {
                if operation == "load" {
                    _ = try await store.load()
                } else {
                    _ = try await store.withExclusiveAccess { Issue.record("ran without the lock") }
                }
            }
            #expect(error?.category == .network)
            #expect(error?.reason == .databaseNoAnswer)
            #expect(error?.message == "PostgreSQL: cannot prepare the table silent_sessions: no connection to the server within 1 s")
            #expect(error.map { !"\($0)".contains("unused-pw") } ?? false)
        }
    }
}

/// A count several tasks add to.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add(_ amount: Int) { lock.withLock { count += amount } }
}

/// A TCP listener on 127.0.0.1 whose connections the kernel completes and
/// nobody ever reads or answers: a database server that hangs.
final class SilentListener: @unchecked Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard descriptor >= 0, bound == 0, listen(descriptor, 64) == 0 else { throw AuthFlowError(.network, "cannot listen") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
#endif
