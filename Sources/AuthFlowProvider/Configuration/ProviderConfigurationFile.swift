import AuthFlow
import Foundation

/// The JSON file `authflow provider serve --config FILE` reads. Member names
/// follow OAuth dynamic client registration (RFC 7591) where one exists;
/// everything is optional, and what is missing comes from
/// ``ProviderConfiguration/demo``:
///
/// ```json
/// {
///   "port": 9000,
///   "sign_in": "automatic",               // or "login_page"
///   "automatic_user": "demo",             // the sub signed in automatically
///   "clients": [{ "client_id": "my-app", "client_secret": "s3cret",
///                 "token_endpoint_auth_method": "client_secret_post",
///                 "redirect_uris": ["http://127.0.0.1/callback"],
///                 "post_logout_redirect_uris": [], "grant_types": ["authorization_code", "refresh_token"],
///                 "scope": "openid profile email offline_access", "id_token_signed_response_alg": "ES256" }],
///   "users": [{ "sub": "alice", "username": "alice", "password": "pw", "claims": { "name": "Alice" } }],
///   "lifetimes": { "authorization_code": 60, "access_token": 3600, "id_token": 3600, "refresh_token": 2592000,
///                  "device_code": 600, "device_polling_interval": 5 },
///   "signing_keys": [{ "kid": "k1", "alg": "RS256", "pem_file": "rsa.pem" }]
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct ProviderConfigurationFile: Decodable, Sendable {
    struct Client: Decodable, Sendable {
        let client_id: String
        let client_secret: String?
        let token_endpoint_auth_method: ProviderClient.Authentication?
        let redirect_uris: [String]?
        let post_logout_redirect_uris: [String]?
        let grant_types: [String]?
        let scope: String?
        let id_token_signed_response_alg: SigningAlgorithm?
    }

    struct User: Decodable, Sendable {
        let sub: String
        let username: String?
        let password: String
        let claims: [String: JSONValue]?
    }

    struct Lifetimes: Decodable, Sendable {
        let authorization_code: TimeInterval?
        let access_token: TimeInterval?
        let id_token: TimeInterval?
        let refresh_token: TimeInterval?
        let device_code: TimeInterval?
        let device_polling_interval: TimeInterval?
    }

    struct Key: Decodable, Sendable {
        let kid: String
        let alg: SigningAlgorithm
        let pem: String?
        let pem_file: String?
    }

    let port: Int?
    let sign_in: String?
    let automatic_user: String?
    let clients: [Client]?
    let users: [User]?
    let lifetimes: Lifetimes?
    let signing_keys: [Key]?

    /// Reads and converts a configuration file; relative `pem_file` paths
    /// are resolved against the file's directory.
    public static func load(_ url: URL) throws -> ProviderConfiguration {
        let file: ProviderConfigurationFile
        do {
            file = try JSONDecoder().decode(ProviderConfigurationFile.self, from: Data(contentsOf: url))
        } catch let error as DecodingError {
            throw ProviderConfigurationError("\(url.lastPathComponent): \(ProviderConfigurationFile.explain(error))")
        }
        return try file.configuration(relativeTo: url.deletingLastPathComponent())
    }

    func configuration(relativeTo directory: URL) throws -> ProviderConfiguration {
        var configuration = ProviderConfiguration.demo
        if let port { configuration.port = port }
        if let clients {
            configuration.clients = clients.map { client in
                ProviderClient(id: client.client_id, secret: client.client_secret, authentication: client.token_endpoint_auth_method,
                               redirectURIs: client.redirect_uris ?? [], postLogoutRedirectURIs: client.post_logout_redirect_uris,
                               grantTypes: client.grant_types.map(Set.init) ?? [GrantType.authorizationCode, GrantType.refreshToken],
                               scopes: client.scope.map { Set($0.split(separator: " ").map(String.init)) }
                                   ?? ["openid", "profile", "email", "offline_access"],
                               idTokenSigningAlgorithm: client.id_token_signed_response_alg ?? .rs256)
            }
        }
        if let users {
            configuration.users = users.map { ProviderUser(subject: $0.sub, username: $0.username, password: $0.password, claims: $0.claims ?? [:]) }
        }
        switch sign_in {
        case nil, "automatic"?:
            let subject = automatic_user ?? (users == nil ? DemoValues.user.subject : configuration.users.first?.subject ?? "")
            configuration.signIn = .automatic(subject: subject)
        case "login_page"?:
            configuration.signIn = .loginPage
        case let other?:
            throw ProviderConfigurationError("sign_in must be \"automatic\" or \"login_page\", not \"\(other)\"")
        }
        if let lifetimes {
            let defaults = TokenLifetimes()
            configuration.lifetimes = TokenLifetimes(
                authorizationCode: lifetimes.authorization_code ?? defaults.authorizationCode,
                accessToken: lifetimes.access_token ?? defaults.accessToken, idToken: lifetimes.id_token ?? defaults.idToken,
                refreshToken: lifetimes.refresh_token ?? defaults.refreshToken, deviceCode: lifetimes.device_code ?? defaults.deviceCode,
                devicePollingInterval: lifetimes.device_polling_interval ?? defaults.devicePollingInterval)
        }
        configuration.signingKeys = try (signing_keys ?? []).map { key in
            let pem: String
            if let inline = key.pem {
                pem = inline
            } else if let path = key.pem_file {
                pem = try String(contentsOf: URL(fileURLWithPath: path, relativeTo: directory), encoding: .utf8)
            } else {
                throw ProviderConfigurationError("signing key \(key.kid) needs pem or pem_file")
            }
            return try SigningKey(pem: pem, algorithm: key.alg, keyID: key.kid)
        }
        return configuration
    }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) is missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(path(context)): \(context.debugDescription)"
        case .dataCorrupted(let context): return "\(path(context)): \(context.debugDescription)"
        @unknown default: return "invalid JSON"
        }
    }
}
