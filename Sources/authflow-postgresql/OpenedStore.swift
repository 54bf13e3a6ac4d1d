#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import AuthFlowPostgres
import AuthFlowStoreHelper
import Logging
import PostgresNIO

/// The PostgreSQL store a ``PostgresStoreConfiguration`` names: the client,
/// running for the helper's lifetime, and the session in its table.
struct OpenedStore: Sendable {
    let store: PostgresCredentialStore
    private let running: Task<Void, Never>
    private let probeConfiguration: @Sendable () throws -> PostgresConnection.Configuration
    private let logger: Logger

    /// Opens (lazily: the first query connects) the store.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the key is
    ///   not 32 bytes of base64 or the table name is not an identifier; the
    ///   messages never hold the key or the password.
    init(_ configuration: PostgresStoreConfiguration) throws {
        let tls = Self.tls(configuration.tls)
        var options = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.user, password: configuration.password,
            database: configuration.database, tls: tls.pool)
        options.options.connectTimeout = .seconds(5)
        options.options.maximumConnections = 4
        options.options.keepAliveBehavior = nil
        var quiet = Logger(label: "authflow-postgresql")
        quiet.logLevel = .critical
        let client = PostgresClient(configuration: options, backgroundLogger: quiet)
        running = Task { await client.run() }
        var tableOptions = PostgresSessionTable.Options()
        tableOptions.concurrentLocks = 2
        // A command waits at most this long for a database that does not answer.
        tableOptions.queryTimeout = 10
        let keys = try CredentialEncryptionKeys(current: try CredentialEncryptionKey(id: configuration.keyID, base64: configuration.key))
        let table = try PostgresSessionTable(client: client, keys: keys, name: configuration.table, options: tableOptions, logger: quiet)
        store = try table.store(sessionID: configuration.sessionID)
        logger = quiet
        let connectionTLS = tls.connection
        probeConfiguration = { () throws -> PostgresConnection.Configuration in
            PostgresConnection.Configuration(
                host: configuration.host, port: configuration.port, username: configuration.user, password: configuration.password,
                database: configuration.database, tls: try connectionTLS())
        }
    }

    /// One direct connection, before the pool is used: a server that refuses
    /// it, or has no TLS when TLS is required, is an error now, with its
    /// cause, rather than the pool's "no connection" at the end of the query
    /// timeout (``AuthFlowPostgres`` pools retry a failed connection).
    func probe() async throws {
        try await DatabaseProbe.connect(try probeConfiguration(), within: 10, logger: logger)
    }

    /// Stops the client.
    func close() {
        running.cancel()
    }

    /// The `sslmode` for the pool and for the probe's one connection (whose
    /// context is made when it connects).
    private static func tls(
        _ mode: PostgresStoreConfiguration.TLSMode
    ) -> (pool: PostgresClient.Configuration.TLS, connection: @Sendable () throws -> PostgresConnection.Configuration.TLS) {
        let configuration = TLSConfiguration.makeClientConfiguration()
        return switch mode {
        case .disable: (.disable, { .disable })
        case .prefer: (.prefer(configuration), { .prefer(try NIOSSLContext(configuration: configuration)) })
        case .require: (.require(configuration), { .require(try NIOSSLContext(configuration: configuration)) })
        }
    }
}
#endif
