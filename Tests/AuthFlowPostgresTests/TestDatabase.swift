#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowPostgres
import Crypto
import Foundation
import Logging
import PostgresNIO
import Testing

/// The PostgreSQL server of the tests: `AUTHFLOW_TEST_POSTGRES_URL`, which
/// `scripts/postgres-for-tests start` prints and scripts/test always sets.
enum TestDatabase {
    static let url = ProcessInfo.processInfo.environment["AUTHFLOW_TEST_POSTGRES_URL"]
    static let available = url != nil
    static let skipReason: Comment =
        "AUTHFLOW_TEST_POSTGRES_URL is unset: start a server with `eval \"$(scripts/postgres-for-tests start)\"` (scripts/test does)"

    /// A client of its own (a pool, as one machine has), running while `body` runs.
    static func withClient<T: Sendable>(_ body: (PostgresClient) async throws -> T) async throws -> T {
        let text = try #require(Self.url)
        let url = try #require(URL(string: text))
        var configuration = PostgresClient.Configuration(
            host: try #require(url.host), port: url.port ?? 5432, username: url.user ?? "postgres",
            password: url.password?.removingPercentEncoding, database: String(url.path.dropFirst()), tls: .disable)
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "test-postgres"))
        let running = Task { await client.run() }
        do {
            let value = try await body(client)
            running.cancel()
            return value
        } catch {
            running.cancel()
            throw error
        }
    }

    /// A table name no other test uses.
    static func freshTable() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(20)
    }

    static let keyA = try! CredentialEncryptionKey(id: "key-a", key: SymmetricKey(size: .bits256))
    static let keyB = try! CredentialEncryptionKey(id: "key-b", key: SymmetricKey(size: .bits256))
    static let keys = try! CredentialEncryptionKeys(current: keyA)

    /// The rows of a query as text, one string per row (`row::text`).
    static func texts(_ client: PostgresClient, _ query: PostgresQuery) async throws -> [String] {
        var found: [String] = []
        for try await text in try await client.query(query).decode(String.self) { found.append(text) }
        return found
    }

    /// Waits (bounded) until `count` lock requests wait in the database.
    static func waitForLockWaiters(_ client: PostgresClient, count: Int) async throws {
        for _ in 0..<2000 {
            var waiting = 0
            for try await value in try await client.query("SELECT count(*) FROM pg_locks WHERE NOT granted").decode(Int.self) {
                waiting = value
            }
            if waiting >= count { return }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        Issue.record("no lock waiter appeared")
    }
}
#endif
