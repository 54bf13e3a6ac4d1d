#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
public import Foundation

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
///                 "scope": "openid profile email offline_access", "id_token_signed_response_alg": "ES256",
///                 "jwks": { "keys": [ … ] },        // public keys for private_key_jwt
///                 "require_pushed_authorization_requests": false }],
///   "users": [{ "sub": "alice", "username": "alice", "password": "pw", "claims": { "name": "Alice" } }],
///   "lifetimes": { "authorization_code": 60, "access_token": 3600, "id_token": 3600, "refresh_token": 2592000,
///                  "device_code": 600, "device_polling_interval": 5 },
///   "signing_keys": [{ "kid": "k1", "alg": "RS256", "pem_file": "rsa.pem" }],
///   "token_endpoint_assertion_audience": false   // also accept <issuer>/token as a client assertion's aud
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct ProviderConfigurationFile: Decodable, Sendable {
    struct Client: Decodable, Sendable {
        let clientId: String
        let clientSecret: String?
        let tokenEndpointAuthMethod: ProviderClient.Authentication?
        let redirectUris: [String]?
        let postLogoutRedirectUris: [String]?
        let grantTypes: [String]?
        let scope: String?
        let idTokenSignedResponseAlg: SigningAlgorithm?
        let jwks: JSONMemberValue?
        let requirePushedAuthorizationRequests: Bool?

        enum CodingKeys: String, CodingKey {
            case clientId = "client_id"
            case clientSecret = "client_secret"
            case tokenEndpointAuthMethod = "token_endpoint_auth_method"
            case redirectUris = "redirect_uris"
            case postLogoutRedirectUris = "post_logout_redirect_uris"
            case grantTypes = "grant_types"
            case scope
            case idTokenSignedResponseAlg = "id_token_signed_response_alg"
            case jwks
            case requirePushedAuthorizationRequests = "require_pushed_authorization_requests"
        }
    }

    struct User: Decodable, Sendable {
        let sub: String
        let username: String?
        let password: String
        let claims: [String: JSONMemberValue]?
    }

    struct Lifetimes: Decodable, Sendable {
        let authorizationCode: TimeInterval?
        let accessToken: TimeInterval?
        let idToken: TimeInterval?
        let refreshToken: TimeInterval?
        let deviceCode: TimeInterval?
        let devicePollingInterval: TimeInterval?

        enum CodingKeys: String, CodingKey {
            case authorizationCode = "authorization_code"
            case accessToken = "access_token"
            case idToken = "id_token"
            case refreshToken = "refresh_token"
            case deviceCode = "device_code"
            case devicePollingInterval = "device_polling_interval"
        }
    }

    struct Key: Decodable, Sendable {
        let kid: String
        let alg: SigningAlgorithm
        let pem: String?
        let pemFile: String?

        enum CodingKeys: String, CodingKey {
            case kid, alg, pem
            case pemFile = "pem_file"
        }
    }

    let port: Int?
    let signIn: String?
    let automaticUser: String?
    let clients: [Client]?
    let users: [User]?
    let lifetimes: Lifetimes?
    let signingKeys: [Key]?
    let tokenEndpointAssertionAudience: Bool?

    enum CodingKeys: String, CodingKey {
        case port
        case signIn = "sign_in"
        case automaticUser = "automatic_user"
        case clients, users, lifetimes
        case signingKeys = "signing_keys"
        case tokenEndpointAssertionAudience = "token_endpoint_assertion_audience"
    }

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
        configuration.acceptsTokenEndpointAssertionAudience = tokenEndpointAssertionAudience ?? false
        if let clients {
            configuration.clients = clients.map { client in
                ProviderClient(
                    id: client.clientId, secret: client.clientSecret, authentication: client.tokenEndpointAuthMethod,
                    redirectURIs: client.redirectUris ?? [], postLogoutRedirectURIs: client.postLogoutRedirectUris,
                    grantTypes: client.grantTypes.map(Set.init) ?? [GrantType.authorizationCode, GrantType.refreshToken],
                    scopes: client.scope.map { Set($0.split(separator: " ").map(String.init)) }
                        ?? ["openid", "profile", "email", "offline_access"],
                    idTokenSigningAlgorithm: client.idTokenSignedResponseAlg ?? .rs256, jwks: client.jwks,
                    requirePushedAuthorizationRequests: client.requirePushedAuthorizationRequests ?? false)
            }
        }
        if let users {
            configuration.users = users.map {
                ProviderUser(subject: $0.sub, username: $0.username, password: $0.password, claims: $0.claims ?? [:])
            }
        }
        switch signIn {
        case nil, "automatic"?:
            let subject = automaticUser ?? (users == nil ? DemoValues.user.subject : configuration.users.first?.subject ?? "")
            configuration.signIn = .automatic(subject: subject)
        case "login_page"?:
            configuration.signIn = .loginPage
        case let other?:
            throw ProviderConfigurationError("sign_in must be \"automatic\" or \"login_page\", not \"\(other)\"")
        }
        if let lifetimes {
            let defaults = TokenLifetimes()
            configuration.lifetimes = TokenLifetimes(
                authorizationCode: lifetimes.authorizationCode ?? defaults.authorizationCode,
                accessToken: lifetimes.accessToken ?? defaults.accessToken, idToken: lifetimes.idToken ?? defaults.idToken,
                refreshToken: lifetimes.refreshToken ?? defaults.refreshToken, deviceCode: lifetimes.deviceCode ?? defaults.deviceCode,
                devicePollingInterval: lifetimes.devicePollingInterval ?? defaults.devicePollingInterval)
        }
        configuration.signingKeys = try (signingKeys ?? []).map { key in
            let pem: String
            if let inline = key.pem {
                pem = inline
            } else if let path = key.pemFile {
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
#endif
