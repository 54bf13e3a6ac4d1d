#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowHummingbird
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
///                 "require_pushed_authorization_requests": false,
///                 "backchannel_client_notification_endpoint": "https://app.example/ciba" }],  // CIBA ping mode
///   "users": [{ "sub": "alice", "username": "alice", "password": "pw", "claims": { "name": "Alice" } }],
///   "lifetimes": { "authorization_code": 60, "access_token": 3600, "id_token": 3600, "refresh_token": 2592000,
///                  "device_code": 600, "device_polling_interval": 5 },
///   "signing_keys": [{ "kid": "k1", "alg": "RS256", "pem_file": "rsa.pem" }],
///   "token_endpoint_assertion_audience": false,  // also accept <issuer>/token as a client assertion's aud
///   "protected_resources": [{ "resource": "/api",  // or "http://127.0.0.1:9000/api" with "port": 9000
///                             "scopes": ["api.read"], "scopes_supported": ["api.read", "api.write"],
///                             "acr_values": ["urn:example:mfa"], "max_age": 300 }],  // RFC 9470, both optional
///   "acr_values_supported": ["urn:example:password", "urn:example:mfa"],  // the acr a sign-in may claim
///   "dynamic_client_registration": true,
///   "scopes_for_dynamic_clients": "profile email offline_access",  // what registered clients may be granted
///   "client_id_metadata_documents": { "enabled": true, "allow_loopback_http": false,
///                                     "max_bytes": 65536, "timeout": 30, "cache_lifetime": 300 },
///   "token_exchange_policy": [ … ], "identity_assertion_policy": { … },  // the grant policies:
///   "trusted_identity_providers": [ … ]                                   // ProviderConfigurationFile+Policies.swift
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
        let backchannelClientNotificationEndpoint: URL?

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
            case backchannelClientNotificationEndpoint = "backchannel_client_notification_endpoint"
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

    struct Resource: Decodable, Sendable {
        let resource: String
        let scopes: [String]?
        let scopesSupported: [String]?
        let acrValues: [String]?
        let maxAge: Int?

        enum CodingKeys: String, CodingKey {
            case resource, scopes
            case scopesSupported = "scopes_supported"
            case acrValues = "acr_values"
            case maxAge = "max_age"
        }
    }

    struct MetadataDocuments: Decodable, Sendable {
        let enabled: Bool?
        let allowLoopbackHTTP: Bool?
        let maxBytes: Int?
        let timeout: TimeInterval?
        let cacheLifetime: TimeInterval?

        enum CodingKeys: String, CodingKey {
            case enabled, timeout
            case allowLoopbackHTTP = "allow_loopback_http"
            case maxBytes = "max_bytes"
            case cacheLifetime = "cache_lifetime"
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
    let protectedResources: [Resource]?
    let dynamicClientRegistration: Bool?
    let scopesForDynamicClients: String?
    let clientIDMetadataDocuments: MetadataDocuments?
    let acrValuesSupported: [String]?
    let tokenExchangePolicy: [ExchangeRule]?
    let identityAssertionPolicy: AssertionPolicy?
    let trustedIdentityProviders: [String]?

    enum CodingKeys: String, CodingKey {
        case port
        case signIn = "sign_in"
        case automaticUser = "automatic_user"
        case clients, users, lifetimes
        case signingKeys = "signing_keys"
        case tokenEndpointAssertionAudience = "token_endpoint_assertion_audience"
        case protectedResources = "protected_resources"
        case dynamicClientRegistration = "dynamic_client_registration"
        case scopesForDynamicClients = "scopes_for_dynamic_clients"
        case clientIDMetadataDocuments = "client_id_metadata_documents"
        case acrValuesSupported = "acr_values_supported"
        case tokenExchangePolicy = "token_exchange_policy"
        case identityAssertionPolicy = "identity_assertion_policy"
        case trustedIdentityProviders = "trusted_identity_providers"
    }

    /// Reads and converts a configuration file; relative `pem_file` paths
    /// are resolved against the file's directory. The result is checked as
    /// ``EmbeddedProvider/start(_:)`` checks it.
    ///
    /// - Throws: ``ProviderConfigurationError`` naming the file and what is
    ///   wrong (malformed JSON, a member of the wrong type, a bad value).
    public static func load(_ url: URL) throws -> ProviderConfiguration {
        let file: ProviderConfigurationFile
        do {
            file = try JSONDecoder().decode(ProviderConfigurationFile.self, from: Data(contentsOf: url))
        } catch let error as DecodingError {
            throw ProviderConfigurationError("\(url.lastPathComponent): \(ProviderConfigurationFile.explain(error))")
        }
        do {
            let configuration = try file.configuration(relativeTo: url.deletingLastPathComponent())
            try configuration.validate()
            return configuration
        } catch let error as ProviderConfigurationError {
            throw ProviderConfigurationError("\(url.lastPathComponent): \(error.description)")
        }
    }

    func configuration(relativeTo directory: URL) throws -> ProviderConfiguration {
        var configuration = ProviderConfiguration.demo
        if let port { configuration.port = port }
        configuration.acceptsTokenEndpointAssertionAudience = tokenEndpointAssertionAudience ?? false
        if let clients {
            configuration.clients = clients.map { client in
                var made = ProviderClient(
                    id: client.clientId, secret: client.clientSecret, authentication: client.tokenEndpointAuthMethod,
                    redirectURIs: client.redirectUris ?? [], postLogoutRedirectURIs: client.postLogoutRedirectUris,
                    grantTypes: client.grantTypes.map(Set.init) ?? [GrantType.authorizationCode, GrantType.refreshToken],
                    scopes: client.scope.map { Set($0.split(separator: " ").map(String.init)) }
                        ?? ["openid", "profile", "email", "offline_access"],
                    idTokenSigningAlgorithm: client.idTokenSignedResponseAlg ?? .rs256, jwks: client.jwks,
                    requirePushedAuthorizationRequests: client.requirePushedAuthorizationRequests ?? false)
                made.backchannelNotificationEndpoint = client.backchannelClientNotificationEndpoint
                return made
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
        if let protectedResources {
            configuration.protectedResources = try protectedResources.enumerated().map { index, entry in
                try entry.converted(index: index, port: configuration.port)
            }
        }
        if let dynamicClientRegistration { configuration.allowsDynamicRegistration = dynamicClientRegistration }
        if let acrValuesSupported { configuration.acrValuesSupported = acrValuesSupported }
        if let scopesForDynamicClients {
            configuration.scopesForDynamicClients = Set(scopesForDynamicClients.split(separator: " ").map(String.init))
        }
        if let documents = clientIDMetadataDocuments {
            var settings = configuration.clientIDMetadataDocuments
            if let enabled = documents.enabled { settings.isEnabled = enabled }
            if let allowed = documents.allowLoopbackHTTP { settings.allowsLoopbackHTTP = allowed }
            if let bytes = documents.maxBytes { settings.maximumBytes = bytes }
            if let timeout = documents.timeout { settings.timeout = timeout }
            if let lifetime = documents.cacheLifetime { settings.cacheLifetime = lifetime }
            configuration.clientIDMetadataDocuments = settings
        }
        applyPolicies(to: &configuration)
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

    /// The member path of the resource at `index`, for messages.
    static func resourceMember(_ index: Int, _ name: String) -> String { "protected_resources[\(index)].\(name)" }

    private static func explain(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.enumerated().map { offset, key in
                key.intValue.map { "[\($0)]" } ?? (offset == 0 ? key.stringValue : "." + key.stringValue)
            }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(path(context)) is missing \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let location = path(context)
            return location.isEmpty ? context.debugDescription : "\(location): \(context.debugDescription)"
        @unknown default: return "invalid JSON"
        }
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
extension ProviderConfigurationFile.Resource {
    /// The resource this entry describes: `resource` a path or a URL on the
    /// provider's listener at the file's `port`; `scopes` (the scopes it
    /// requires) `api.read` when left out, never empty.
    func converted(index: Int, port: Int) throws -> ProviderProtectedResource {
        let path = try ProviderProtectedResource.path(
            of: resource, port: port, name: ProviderConfigurationFile.resourceMember(index, "resource"), portSource: "port")
        if let scopes, scopes.isEmpty {
            throw ProviderConfigurationError(
                "\(ProviderConfigurationFile.resourceMember(index, "scopes")) must name at least one scope (leave it out for api.read)")
        }
        if acrValues != nil || maxAge != nil {
            do {
                _ = try AuthenticationRequirement(acrValues: acrValues ?? [], maxAge: maxAge)
            } catch {
                let message = (error as? AuthFlowError)?.message ?? "\(error)"
                throw ProviderConfigurationError("\(ProviderConfigurationFile.resourceMember(index, "acr_values")) or max_age: \(message)")
            }
        }
        var converted = ProviderProtectedResource(
            path: path, requiredScopes: scopes ?? ["api.read"], scopesSupported: scopesSupported ?? [])
        converted.requiredACRValues = acrValues ?? []
        converted.maxAuthenticationAge = maxAge
        return converted
    }
}
#endif
