#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// What `authflow login` stores per profile: versioned JSON, mode 0600 in a
/// 0700 directory, replaced atomically, read only when private (``ProfileFile``).
///
/// A profile keeps its settings — the provider's metadata, the client (its
/// secret, or the name of the variable holding it), scopes, extra
/// authorization parameters, the loopback port — apart from its
/// credentials. Losing the credentials (`logout`, `invalid_grant`, an
/// expired token without a refresh token) keeps the settings, so
/// `authflow login --profile NAME` signs in again without flags;
/// `authflow logout --forget` deletes the whole profile.
struct Profile: Codable {
    /// The newest format version; versions 1 through it are read.
    static let currentVersion = 2

    var version: Int
    var name: String
    var metadata: ProviderMetadata
    var clientID: String
    var clientAuthentication: String
    var clientSecret: String?
    var clientSecretEnv: String?
    var scopes: [String]
    var parameters: [AuthorizationOptions.Parameter]
    var port: Int
    var device: Bool
    /// Nil when signed out.
    var credentials: OAuthCredentials?
    /// The session's tokens for other resources (`authflow token --resource`);
    /// secret, kept where ``credentials`` are.
    var resourceTokens: [ResourceToken] = []
    var savedAt: Date
    /// private_key_jwt: the key file (the key itself is not copied), its kid, the assertion audience.
    var privateKeyPath: String?
    var keyID: String?
    var assertionAudience: String?
    /// The DPoP key the tokens are bound to (private JWK; the file is 0600 like the tokens beside it).
    /// Kept only while the credentials are DPoP-bound (``save()`` drops it otherwise).
    var dpopKey: DPoPKey?
    /// Whether sign-ins bind the tokens to a new DPoP key (`--dpop`), kept for `authflow login` again.
    var dpop = false
    /// Whether sign-ins push the authorization request first (`--par`), kept for `authflow login` again.
    var par = false
    /// The URLs the credential helpers (git, Docker) answer with this profile
    /// when no `--profile` is given (`authflow credential hosts`).
    var credentialURLs: [String]?
    /// The username the git and Docker helpers answer with (default `oauth2`).
    var credentialUsername: String?
    /// The protected resource signed in to (`login --resource`): tokens are
    /// asked for it (RFC 8707) and sent only to it.
    var resource: ResourceIdentifier?
    /// The dynamic registration the client ID comes from (RFC 7591), reused
    /// by the next `login --resource` for the same issuer. Its secret, if any,
    /// is as private as the tokens beside it.
    var registration: ClientRegistration?
    /// Where the credentials and the DPoP key live: nil for this file,
    /// ``ProfileKeyring/storeName`` for the desktop keyring (``ProfileKeyring``).
    var credentialStore: String?

    /// Whether the secrets live in the desktop keyring rather than in this file.
    var usesKeyring: Bool { credentialStore == ProfileKeyring.storeName }

    var issuer: String? { metadata.issuer?.identifier }

    init(
        name: String, metadata: ProviderMetadata, clientID: String, clientAuthentication: String, clientSecret: String?,
        clientSecretEnv: String?, scopes: [String], parameters: [AuthorizationOptions.Parameter], port: Int, device: Bool,
        credentials: OAuthCredentials?
    ) {
        version = Profile.currentVersion
        self.name = name
        self.metadata = metadata
        self.clientID = clientID
        self.clientAuthentication = clientAuthentication
        self.clientSecret = clientSecret
        self.clientSecretEnv = clientSecretEnv
        self.scopes = scopes
        self.parameters = parameters
        self.port = port
        self.device = device
        self.credentials = credentials
        savedAt = Date()
    }

    enum CodingKeys: String, CodingKey {
        case version, name, metadata, credentials, scopes, port, device
        case clientID = "client_id"
        case clientAuthentication = "client_auth"
        case clientSecret = "client_secret"
        case clientSecretEnv = "client_secret_env"
        case parameters = "params"
        case savedAt = "saved_at"
        case privateKeyPath = "private_key_file"
        case keyID = "key_id"
        case assertionAudience = "assertion_audience"
        case dpopKey = "dpop_key"
        case dpop, par
        case credentialURLs = "credential_urls"
        case credentialUsername = "credential_username"
        case resource, registration
        case credentialStore = "credential_store"
        case resourceTokens = "resource_tokens"
    }

    /// Reads version 2, and version 1 (credentials required; no scopes,
    /// parameters or port: taken from the credentials, or the defaults).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        name = try container.decode(String.self, forKey: .name)
        metadata = try container.decode(ProviderMetadata.self, forKey: .metadata)
        credentials = try container.decodeIfPresent(OAuthCredentials.self, forKey: .credentials)
        guard let clientID = try container.decodeIfPresent(String.self, forKey: .clientID) ?? credentials?.clientID else {
            throw DecodingError.keyNotFound(CodingKeys.clientID, .init(codingPath: container.codingPath, debugDescription: "no client id"))
        }
        self.clientID = clientID
        clientAuthentication = try container.decode(String.self, forKey: .clientAuthentication)
        clientSecret = try container.decodeIfPresent(String.self, forKey: .clientSecret)
        clientSecretEnv = try container.decodeIfPresent(String.self, forKey: .clientSecretEnv)
        scopes = try container.decodeIfPresent([String].self, forKey: .scopes) ?? credentials?.scopes ?? []
        parameters = try container.decodeIfPresent([AuthorizationOptions.Parameter].self, forKey: .parameters) ?? []
        port = try container.decodeIfPresent(Int.self, forKey: .port) ?? 0
        device = try container.decodeIfPresent(Bool.self, forKey: .device) ?? false
        savedAt = try container.decode(Date.self, forKey: .savedAt)
        privateKeyPath = try container.decodeIfPresent(String.self, forKey: .privateKeyPath)
        keyID = try container.decodeIfPresent(String.self, forKey: .keyID)
        assertionAudience = try container.decodeIfPresent(String.self, forKey: .assertionAudience)
        dpopKey = try container.decodeIfPresent(DPoPKey.self, forKey: .dpopKey)
        // Profiles written before these settings: a DPoP key meant --dpop.
        dpop = try container.decodeIfPresent(Bool.self, forKey: .dpop) ?? (dpopKey != nil)
        par = try container.decodeIfPresent(Bool.self, forKey: .par) ?? false
        credentialURLs = try container.decodeIfPresent([String].self, forKey: .credentialURLs)
        credentialUsername = try container.decodeIfPresent(String.self, forKey: .credentialUsername)
        resource = try container.decodeIfPresent(ResourceIdentifier.self, forKey: .resource)
        registration = try container.decodeIfPresent(ClientRegistration.self, forKey: .registration)
        credentialStore = try container.decodeIfPresent(String.self, forKey: .credentialStore)
        resourceTokens = try container.decodeIfPresent([ResourceToken].self, forKey: .resourceTokens) ?? []
    }

    /// Whether the credentials held are DPoP-bound (``ProfileCredentials/holdsDPoPToken``).
    var holdsDPoPToken: Bool { signIn.holdsDPoPToken }

    /// The name and the credentials, which is all `authflow token` reads
    /// while the stored token is valid.
    var signIn: ProfileCredentials { ProfileCredentials(name: name, credentials: credentials) }

    /// `$XDG_CONFIG_HOME/authflow/NAME.json`, else `~/.config/authflow/NAME.json`
    /// (``ProfileLocation``).
    static func url(for name: String) throws -> URL {
        guard let url = ProfileLocation.url(for: name) else { throw AuthFlowError(.configuration, ProfileLocation.nameRule) }
        return url
    }

    /// The profile, or nil when there is none; with its secrets from the
    /// keyring when it keeps them there.
    static func loadIfPresent(_ name: String) throws -> Profile? {
        guard var profile = try loadSettingsIfPresent(name) else { return nil }
        if profile.usesKeyring {
            let secret = try ProfileKeyring.load(profile: name)
            profile.credentials = secret?.credentials
            profile.dpopKey = secret?.dpopKey
            profile.resourceTokens = secret?.resourceTokens ?? []
        }
        return profile
    }

    /// The profile as its file has it (no secrets from the keyring), or nil when there is none.
    static func loadSettingsIfPresent(_ name: String) throws -> Profile? { try loadFile(Profile.self, name) }

    /// The name and credentials alone, which is all `authflow token` reads
    /// while the stored token is valid; from the keyring when the profile
    /// keeps them there. `reauthentication_required` when there is no profile.
    static func loadCredentials(_ name: String) throws -> ProfileCredentials {
        guard var stored = try loadFile(ProfileCredentials.self, name) else { throw missing(name) }
        if stored.credentialStore == ProfileKeyring.storeName {
            stored.credentials = try ProfileKeyring.load(profile: name)?.credentials
        }
        return stored
    }

    /// The profile file read as `type` (``Profile``, or ``ProfileCredentials``
    /// for its name and credentials alone), or nil when there is none.
    private static func loadFile<Part: Decodable>(_ type: Part.Type, _ name: String) throws -> Part? {
        let url = try url(for: name)
        guard let data = try ProfileFile.read(url) else { return nil }
        let found = try VersionedFile.version(of: data, path: url.path)
        return try VersionedFile.decode(
            Part.self, from: data, current: (1...currentVersion).contains(found) ? found : currentVersion,
            path: url.path)
    }

    /// The profile (secrets from the keyring when it keeps them there);
    /// `reauthentication_required` when there is none.
    static func load(_ name: String) throws -> Profile {
        guard let profile = try loadIfPresent(name) else { throw missing(name) }
        return profile
    }

    private static func missing(_ name: String) -> AuthFlowError {
        AuthFlowError(
            .reauthenticationRequired, "there is no profile \(name)",
            recovery: "Sign in with authflow login --issuer URL --client-id ID\(name == "default" ? "" : " --profile \(name)").")
    }

    /// The credentials, or `reauthentication_required` telling how to sign in again.
    func signedInCredentials() throws -> OAuthCredentials { try signIn.signedInCredentials() }

    /// Seconds before expiry at which a token is refreshed (at most half its lifetime: ``TokenValidity``).
    static let leeway: TimeInterval = 60

    @discardableResult
    func save() throws -> URL {
        var copy = self
        copy.version = Profile.currentVersion
        copy.savedAt = Date()
        // A key the tokens are not bound to is of no use and must not linger.
        if !copy.holdsDPoPToken { copy.dpopKey = nil }
        if copy.usesKeyring {
            // The secrets first: a file without them must not stand for a sign-in the keyring lacks.
            try ProfileKeyring.save(
                profile: name,
                copy.credentials.map {
                    ProfileKeyring.Secret(
                        credentials: $0, dpopKey: copy.dpopKey, resourceTokens: copy.resourceTokens.isEmpty ? nil : copy.resourceTokens)
                })
            copy.credentials = nil
            copy.dpopKey = nil
            copy.resourceTokens = []
        }
        let url = try Profile.url(for: name)
        try ProfileFile.prepareDirectory(of: url)
        try AtomicFile.write(try VersionedFile.encode(copy), to: url)
        return url
    }

    /// Deletes the profile file and its lock files (refresh, and a credential helper's sign-in).
    static func forget(_ name: String) throws {
        let url = try url(for: name)
        if let settings = try? loadSettingsIfPresent(name), settings.usesKeyring { try ProfileKeyring.delete(profile: name) }
        for file in [url, url.appendingPathExtension("lock"), url.appendingPathExtension("signin.lock")]
        where FileManager.default.fileExists(atPath: file.path) {
            do { try FileManager.default.removeItem(at: file) } catch {
                throw AuthFlowError(.storage, "cannot delete \(file.path)", underlyingError: error)
            }
        }
    }

    /// The client this profile signs in with.
    func client(timeout: TimeInterval, logger: Logger) throws -> OAuthClient {
        var client = try OAuthClient(
            metadata: metadata, clientID: clientID, authentication: authentication(), timeout: timeout, logger: logger)
        client.dpop = dpopKey.map { DPoPBinding(key: $0) }
        client.resource = resource
        client.registration = registration
        return client
    }

    func authentication() throws -> ClientAuthentication {
        var secret = clientSecret
        if secret == nil, let variable = clientSecretEnv {
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw AuthFlowError(
                    .configuration, "profile \(name) takes its client secret from \(variable), which is not set",
                    recovery: "Set \(variable).")
            }
            secret = value
        }
        if let jwt = try JWTClientAuthentication.make(
            method: clientAuthentication, secret: secret, privateKeyPath: privateKeyPath,
            keyID: keyID, audience: assertionAudience)
        {
            return jwt
        }
        switch (clientAuthentication, secret) {
        case ("none", _): return .none
        case ("client_secret_basic", let secret?): return .clientSecretBasic(secret: secret)
        case ("client_secret_post", let secret?): return .clientSecretPost(secret: secret)
        default: throw AuthFlowError(.configuration, "profile \(name) has client authentication \(clientAuthentication) without a secret")
        }
    }
}

/// A profile's name and credentials, read from its file without the rest
/// (``Profile/load(_:_:)``): `authflow token` needs no more while the
/// stored token is valid. The rules on them are here, and ``Profile`` uses these.
struct ProfileCredentials: Decodable {
    var name: String
    /// Nil when signed out.
    var credentials: OAuthCredentials?
    /// Where the credentials live (``Profile/credentialStore``).
    var credentialStore: String?

    init(name: String, credentials: OAuthCredentials?, credentialStore: String? = nil) {
        self.name = name
        self.credentials = credentials
        self.credentialStore = credentialStore
    }

    private enum CodingKeys: String, CodingKey {
        case name, credentials
        case credentialStore = "credential_store"
    }

    /// Whether the credentials held are DPoP-bound (the token type compared
    /// case-insensitively, as RFC 6749 §5.1 has it).
    var holdsDPoPToken: Bool {
        credentials.map { $0.token.tokenType.equalsIgnoringASCIICase("DPoP") } ?? false
    }

    /// The credentials, or `reauthentication_required` telling how to sign in again.
    func signedInCredentials() throws -> OAuthCredentials {
        guard let credentials else {
            throw AuthFlowError(
                .reauthenticationRequired, "profile \(name) is not signed in",
                recovery:
                    "Sign in again with authflow login\(name == "default" ? "" : " --profile \(name)") (the profile keeps its settings).")
        }
        return credentials
    }
}
#endif
