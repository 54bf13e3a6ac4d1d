import AuthFlow
import Foundation
import Logging

/// What `authflow login` stores per profile: versioned JSON, mode 0600 in a
/// 0700 directory, replaced atomically. It holds what later commands need to
/// refresh, call userinfo and log out without asking again: the provider's
/// metadata, the client (and its secret, or the name of the variable holding
/// it) and the credentials.
struct Profile: Codable {
    static let currentVersion = 1

    var version: Int
    var name: String
    var metadata: ProviderMetadata
    var clientAuthentication: String
    var clientSecret: String?
    var clientSecretEnv: String?
    var credentials: Credentials
    var savedAt: Date
    /// private_key_jwt: the key file (the key itself is not copied), its kid, the assertion audience.
    var privateKeyPath: String?
    var keyID: String?
    var assertionAudience: String?
    /// The DPoP key the tokens are bound to (private JWK; the file is 0600 like the tokens beside it).
    var dpopKey: DPoPKey?

    var issuer: String? { metadata.issuer }

    enum CodingKeys: String, CodingKey {
        case version, name, metadata, credentials
        case clientAuthentication = "client_auth"
        case clientSecret = "client_secret"
        case clientSecretEnv = "client_secret_env"
        case savedAt = "saved_at"
        case privateKeyPath = "private_key_file", keyID = "key_id", assertionAudience = "assertion_audience", dpopKey = "dpop_key"
    }

    /// `$XDG_CONFIG_HOME/authflow/NAME.json`, else `~/.config/authflow/NAME.json`.
    static func url(for name: String) throws -> URL {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, !name.hasPrefix("."), name.count <= 64, name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw AuthFlowError(.configuration, "profile names use letters, digits, '.', '_' and '-' and do not start with '.'")
        }
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        }
        return base.appendingPathComponent("authflow").appendingPathComponent("\(name).json")
    }

    static func load(_ name: String) throws -> Profile {
        let url = try url(for: name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw AuthFlowError(.reauthenticationRequired, "no profile \(name); run authflow login first")
        }
        return try VersionedFile.decode(Profile.self, from: data, current: currentVersion, path: url.path)
    }

    @discardableResult
    func save() throws -> URL {
        let url = try Profile.url(for: name)
        try AtomicFile.write(try VersionedFile.encode(self), to: url)
        return url
    }

    /// The client this profile signed in with.
    func client(timeout: TimeInterval, logger: Logger) throws -> OAuthClient {
        var client = try OAuthClient(metadata: metadata, clientID: credentials.clientID, authentication: authentication(),
                                     timeout: timeout, logger: logger)
        client.dpop = dpopKey.map { DPoPBinding(key: $0) }
        return client
    }

    /// A session over this profile, refreshing under the profile's lock.
    func session(timeout: TimeInterval, logger: Logger) throws -> AuthSession {
        AuthSession(client: try client(timeout: timeout, logger: logger), store: try ProfileStore(name: name))
    }

    private func authentication() throws -> ClientAuthentication {
        var secret = clientSecret
        if secret == nil, let variable = clientSecretEnv {
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw AuthFlowError(.configuration, "profile \(name) takes its client secret from \(variable), which is not set")
            }
            secret = value
        }
        if let jwt = try SenderOptions.jwtAuthentication(method: clientAuthentication, secret: secret, privateKeyPath: privateKeyPath,
                                                          keyID: keyID, audience: assertionAudience) { return jwt }
        switch (clientAuthentication, secret) {
        case ("none", _): return .none
        case ("client_secret_basic", let secret?): return .clientSecretBasic(secret: secret)
        case ("client_secret_post", let secret?): return .clientSecretPost(secret: secret)
        default: throw AuthFlowError(.configuration, "profile \(name) has client authentication \(clientAuthentication) without a secret")
        }
    }
}

/// The credentials part of a profile as a ``CredentialStore``, with the
/// cross-process lock on `NAME.json.lock`, so that `AuthSession` refreshes
/// once across parallel `authflow token` processes.
struct ProfileStore: CredentialStore {
    let name: String
    let lock: FileLock

    init(name: String) throws {
        self.name = name
        lock = FileLock(url: try Profile.url(for: name).appendingPathExtension("lock"))
    }

    func load() async throws -> Credentials? {
        guard FileManager.default.fileExists(atPath: try Profile.url(for: name).path) else { return nil }
        return try Profile.load(name).credentials
    }

    func save(_ credentials: Credentials) async throws {
        var profile = try Profile.load(name)
        profile.credentials = credentials
        profile.savedAt = Date()
        try profile.save()
    }

    func delete() async throws {
        let url = try Profile.url(for: name)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await lock.withLock(body)
    }
}
