#if CLI // the CLI package trait
import AuthFlow
import AuthFlowStoreHelper
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// A profile's credentials in a shared PostgreSQL table (`--store
/// postgresql://…`), kept by the helper `authflow-postgresql` for the
/// command's lifetime (``StoreHelperClient``). The session ID is the profile
/// name; the profile's file keeps the settings, without the credentials.
struct SharedStore: ProfileSessionStore {
    /// The helper's name, found beside `authflow` or in `../libexec/authflow/`.
    static let helper = "authflow-postgresql"

    let store: StoreHelperClient
    let profile: String
    /// Where, for messages (without the password).
    let address: PostgresStoreAddress

    /// Starts the helper for `address`. The helper connects lazily: the first
    /// query (or ``probe()``) connects.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when no key is
    ///   given or it is not 32 bytes of base64, or the helper is missing;
    ///   the messages never hold the key or the password.
    init(
        _ address: PostgresStoreAddress, profile: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws {
        self.profile = profile
        self.address = address
        let (keyID, key) = try Self.key(environment)
        let configuration = PostgresStoreConfiguration(
            host: address.host, port: address.port, user: address.user, password: try address.password(environment: environment),
            database: address.database, table: address.table, tls: address.tls, keyID: keyID, key: key, sessionID: profile)
        guard let executable = HelperExecutable.locate(Self.helper) else {
            throw AuthFlowError(
                .configuration, "a PostgreSQL store needs \(Self.helper), which is not installed beside authflow",
                recovery:
                    "Install the authflow-postgresql package (the release archive has it in libexec/authflow), or build it: swift build --traits CLI --product authflow-postgresql."
            )
        }
        store = try await StoreHelperClient(executable: executable, name: Self.helper, configuration: configuration)
    }

    /// One direct connection, before the pool is used: a server that refuses
    /// it, or has no TLS when TLS is required, is an error now, with its
    /// cause, rather than the pool's "no connection" at the end of the query
    /// timeout.
    func probe() async throws {
        try await store.probe()
    }

    func checkBeforeSignIn() async throws {
        try ProfileFile.prepareDirectory(of: try Profile.url(for: profile))
        try await probe()
        _ = try await store.load()
    }

    /// Ends the helper.
    func close() {
        store.close()
    }

    /// Runs `body` with the shared store of `profile`, closing it afterwards.
    static func with<T>(
        _ address: PostgresStoreAddress, profile: String, _ body: (SharedStore) async throws -> T
    ) async throws -> T {
        let shared = try await SharedStore(address, profile: profile)
        defer { shared.close() }
        return try await body(shared)
    }

    /// The encryption key's ID and its text: `AUTHFLOW_STORE_KEY_FILE` (the
    /// key in base64 on its first line), else `AUTHFLOW_STORE_KEY`; its ID
    /// `AUTHFLOW_STORE_KEY_ID`. The helper checks that it is 32 bytes.
    static func key(_ environment: [String: String]) throws -> (id: String, base64: String) {
        let id = environment["AUTHFLOW_STORE_KEY_ID"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        if let path = environment["AUTHFLOW_STORE_KEY_FILE"], !path.isEmpty {
            return (id, try PostgresStoreAddress.firstLine(of: path, what: "the key file AUTHFLOW_STORE_KEY_FILE names"))
        }
        if let value = environment["AUTHFLOW_STORE_KEY"], !value.isEmpty {
            return (id, value)
        }
        throw AuthFlowError(
            .configuration, "a PostgreSQL store needs an encryption key",
            recovery:
                "Set AUTHFLOW_STORE_KEY_FILE to a file holding 32 random bytes in base64 (openssl rand -base64 32), or AUTHFLOW_STORE_KEY."
        )
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
