#if CLI // the CLI package trait
import AuthFlow
import AuthFlowPostgres
import Foundation
import Logging
import PostgresNIO

/// A profile's credentials in a shared PostgreSQL table (`--store
/// postgresql://…`): the client running for the command's lifetime and the
/// profile's session in it. The session ID is the profile name; the
/// profile's file keeps the settings, without the credentials.
struct SharedStore: ProfileSessionStore {
    let store: PostgresCredentialStore
    let profile: String
    /// Where, for messages (without the password).
    let address: PostgresStoreAddress
    private let running: Task<Void, Never>
    private let logger: Logger
    private let probeConfiguration: @Sendable () throws -> PostgresConnection.Configuration

    /// Connects (lazily: the first query connects) to `address`.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when no key is
    ///   given or it is not 32 bytes of base64; the messages never hold the
    ///   key or the password.
    init(
        _ address: PostgresStoreAddress, profile: String, logger: Logger,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws
    {
        self.profile = profile
        self.address = address
        let tls = try Self.tls(address.tls)
        let password = try address.password(environment: environment)
        var configuration = PostgresClient.Configuration(
            host: address.host, port: address.port, username: address.user, password: password,
            database: address.database, tls: tls.pool)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.maximumConnections = 4
        configuration.options.keepAliveBehavior = nil
        var quiet = logger
        quiet.logLevel = .critical
        let client = PostgresClient(configuration: configuration, backgroundLogger: quiet)
        running = Task { await client.run() }
        var options = PostgresSessionTable.Options()
        options.concurrentLocks = 2
        // A command waits at most this long for a database that does not answer.
        options.queryTimeout = 10
        let table = try PostgresSessionTable(
            client: client, keys: try Self.keys(environment), name: address.table, options: options, logger: logger)
        store = try table.store(sessionID: profile)
        self.logger = quiet
        let connectionTLS = tls.connection
        probeConfiguration = { () throws -> PostgresConnection.Configuration in
            PostgresConnection.Configuration(
                host: address.host, port: address.port, username: address.user, password: password, database: address.database,
                tls: try connectionTLS())
        }
    }

    /// One direct connection, before the pool is used: a server that refuses
    /// it, or has no TLS when TLS is required, is an error now, with its
    /// cause, rather than the pool's "no connection" at the end of the query
    /// timeout (``AuthFlowPostgres`` pools retry a failed connection).
    func probe() async throws {
        try await DatabaseProbe.connect(try probeConfiguration(), within: 10, logger: logger)
    }

    func checkBeforeSignIn() async throws {
        try ProfileFile.prepareDirectory(of: try Profile.url(for: profile))
        try await probe()
        _ = try await store.load()
    }

    /// Stops the client.
    func close() {
        running.cancel()
    }

    /// Runs `body` with the shared store of `profile`, closing it afterwards.
    static func with<T>(
        _ address: PostgresStoreAddress, profile: String, logger: Logger, _ body: (SharedStore) async throws -> T
    ) async throws -> T {
        let shared = try SharedStore(address, profile: profile, logger: logger)
        defer { shared.close() }
        return try await body(shared)
    }

    /// The encryption key: `AUTHFLOW_STORE_KEY_FILE` (the key in base64 on its
    /// first line), else `AUTHFLOW_STORE_KEY`; its ID `AUTHFLOW_STORE_KEY_ID`.
    static func keys(_ environment: [String: String]) throws -> CredentialEncryptionKeys {
        let id = environment["AUTHFLOW_STORE_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        let text: String
        if let path = environment["AUTHFLOW_STORE_KEY_FILE"], !path.isEmpty {
            text = try PostgresStoreAddress.firstLine(of: path, what: "the key file AUTHFLOW_STORE_KEY_FILE names")
        } else if let value = environment["AUTHFLOW_STORE_KEY"], !value.isEmpty {
            text = value
        } else {
            throw AuthFlowError(
                .configuration, "a PostgreSQL store needs an encryption key",
                recovery:
                    "Set AUTHFLOW_STORE_KEY_FILE to a file holding 32 random bytes in base64 (openssl rand -base64 32), or AUTHFLOW_STORE_KEY."
            )
        }
        return try CredentialEncryptionKeys(current: try CredentialEncryptionKey(id: id, base64: text))
    }

    /// The URL's `sslmode` for the pool and for the probe's one connection
    /// (whose context is made when it connects).
    private static func tls(
        _ mode: PostgresStoreAddress.TLSMode
    ) throws -> (pool: PostgresClient.Configuration.TLS, connection: @Sendable () throws -> PostgresConnection.Configuration.TLS) {
        let configuration = TLSConfiguration.makeClientConfiguration()
        return switch mode {
        case .disable: (.disable, { .disable })
        case .prefer: (.prefer(configuration), { .prefer(try NIOSSLContext(configuration: configuration)) })
        case .require: (.require(configuration), { .require(try NIOSSLContext(configuration: configuration)) })
        }
    }

    func load() async throws -> SessionRecord? { try await store.load() }
    func save(_ record: SessionRecord) async throws { try await store.save(record) }
    func delete() async throws { try await store.delete() }
    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await store.withExclusiveAccess(body)
    }
    func refreshWillStart() async throws { try await store.refreshWillStart() }

    func signedInCredentials() async throws -> OAuthCredentials {
        try await signedInRecord().credentials
    }

    /// The stored record, or `reauthentication_required` that says how to sign in.
    private func signedInRecord() async throws -> SessionRecord {
        guard let record = try await store.load() else {
            throw AuthFlowError(
                .reauthenticationRequired, "profile \(profile) is not signed in in the PostgreSQL store",
                recovery: "Sign in with authflow login --store … \(profile == "default" ? "" : "--profile \(profile)")")
        }
        return record
    }

    /// The record's own issuer and resource: this machine may have no profile file.
    func status(now: Date) async throws -> Summary {
        let record = try await signedInRecord()
        return Summary(
            name: profile, issuer: record.metadata.issuer?.identifier, resource: record.resource?.description,
            credentials: record.credentials, showTokens: false, includeExpired: true, now: now, store: "postgresql"
        ).listing(record.resourceTokens, now: now)
    }

    /// A session over the stored record; the client secret (when the
    /// session needs one) comes from a local profile of the same name.
    func storedSession(timeout: TimeInterval, logger: Logger) async throws -> StoredSession? {
        guard let record = try await store.load() else { return nil }
        var authentication = ClientAuthentication.none
        if record.clientAuthenticationMethod != .none {
            guard let local = try Profile.loadIfPresent(profile) else {
                throw AuthFlowError(
                    .configuration,
                    "the session authenticates with \(record.clientAuthenticationMethod); its secret is in no profile \(profile) on this machine",
                    recovery: "Sign in once on this machine with the client's secret, or use a public client.")
            }
            authentication = try local.authentication()
        }
        let session = try await AuthSession.restore(
            record, from: store, authentication: authentication, transport: URLSessionTransport(), logger: logger, leeway: Profile.leeway)
        return StoredSession(session: session, idToken: record.credentials.token.idToken, port: 0)
    }

    /// The credentials in the shared table (under the session's lock), the
    /// settings in the profile file without them.
    func saveSignIn(_ profile: Profile, client: OAuthClient) async throws -> SavedSignIn {
        if let credentials = profile.credentials {
            _ = try await AuthSession.start(client: client, credentials: credentials, store: store, leeway: Profile.leeway)
        }
        var withoutCredentials = profile
        withoutCredentials.credentials = nil
        let settings = withoutCredentials
        try await ProfileStore(name: profile.name).lock.withLock { _ = try settings.save() }
        return SavedSignIn(
            profile: profile, path: nil, store: "postgresql", note: "Signed in. The credentials are in \(address), encrypted.")
    }

    /// Deletes the profile's settings, when this machine has them.
    func forgetProfile() throws {
        if try Profile.loadIfPresent(profile) != nil { try Profile.forget(profile) }
    }

    func notSignedIn(forget: Bool) -> String { "Profile \(profile) is not signed in in the PostgreSQL store." }

    func signedOut(revoked: Bool?, forget: Bool) -> String {
        switch revoked {
        case nil: "Signed out everywhere. The provider has no revocation endpoint, so the tokens stay valid until they expire."
        case true?: "Tokens revoked; signed out everywhere."
        case false?: "Signed out everywhere (locally)."
        }
    }
}
#endif
