#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a client authenticates at the token endpoint, without the secret:
/// what a ``SessionRecord`` remembers so that a restored session can tell
/// which ``ClientAuthentication`` it needs.
public struct ClientAuthenticationMethod: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The OpenID Connect name (`token_endpoint_auth_method`).
    public var rawValue: String
    /// Creates a method from its OpenID Connect name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A public client (no secret).
    public static let none = ClientAuthenticationMethod(rawValue: "none")
    /// HTTP Basic with the client secret.
    public static let clientSecretBasic = ClientAuthenticationMethod(rawValue: "client_secret_basic")
    /// The client secret in the form body.
    public static let clientSecretPost = ClientAuthenticationMethod(rawValue: "client_secret_post")
    /// A JWT signed with the client's private key (RFC 7523 §2.2, OIDC Core §9).
    public static let privateKeyJWT = ClientAuthenticationMethod(rawValue: "private_key_jwt")
    /// A JWT signed with the client secret (HS256, OIDC Core §9).
    public static let clientSecretJWT = ClientAuthenticationMethod(rawValue: "client_secret_jwt")

    /// The OpenID Connect name.
    public var description: String { rawValue }

    /// Decodes the name from its string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the name as its string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

extension ClientAuthentication {
    /// The method without its secret.
    public var method: ClientAuthenticationMethod { ClientAuthenticationMethod(rawValue: methodName) }
}

/// Everything a session needs without the network: the credentials, the
/// provider metadata it uses (issuer, token, revocation, userinfo and
/// end-session endpoints, JWKS URI) and how the client authenticates — never
/// the client secret. ``AuthSession/restore(from:authentication:dpopKey:transport:logger:leeway:)``
/// builds a working session from it offline.
public struct SessionRecord: Sendable, Codable, Equatable {
    /// The tokens (and the client id they belong to).
    public var credentials: OAuthCredentials
    /// The provider metadata the session uses.
    public var metadata: ProviderMetadata
    /// How the client authenticates at the token endpoint (no secret).
    public var clientAuthenticationMethod: ClientAuthenticationMethod
    /// False for a record read from the first stored format, which kept only
    /// the credentials: its ``metadata`` holds the issuer alone, and
    /// restoring it needs discovery once. Not stored.
    public internal(set) var hasMetadata: Bool = true
    /// The key DPoP-bound tokens are bound to (RFC 9449), kept with them so
    /// that a bound refresh token still works after a restart. A private key:
    /// the record is as secret as the tokens beside it. Only a software
    /// ``DPoPKey``: a key kept in hardware (a ``DPoPSigningKey`` such as a
    /// Secure Enclave key) stays where it is, and is given back to
    /// ``AuthSession/restore(from:authentication:dpopKey:transport:logger:leeway:)``.
    public var dpopKey: DPoPKey?
    /// The protected resource the tokens are for (``OAuthClient/resource``,
    /// RFC 8707), so that a restored session still asks for tokens for it and
    /// sends them nowhere else. Nil for a session not tied to one resource.
    public var resource: ResourceIdentifier?
    /// The dynamic registration (RFC 7591) the client ID comes from
    /// (``OAuthClient/registration``), kept so that the next launch reuses
    /// it for the same issuer instead of registering again. Holds the client
    /// secret of a confidential registration: the record is as secret as the
    /// tokens beside it.
    public var registration: ClientRegistration?
    /// The session's tokens for other resources than its own, one per
    /// resource (``AuthSession/resourceToken(for:using:minimumValidity:rejecting:)``).
    /// Stored under `resource_tokens` when there are any; a record written
    /// before they existed reads as holding none, and a reader that does not
    /// know them ignores the member (the format version stays 2).
    public var resourceTokens: [ResourceToken] = []

    /// Creates a record.
    public init(
        credentials: OAuthCredentials, metadata: ProviderMetadata, clientAuthenticationMethod: ClientAuthenticationMethod,
        dpopKey: DPoPKey? = nil
    ) {
        self.credentials = credentials
        self.metadata = metadata
        self.clientAuthenticationMethod = clientAuthenticationMethod
        self.dpopKey = dpopKey
    }

    /// The record of `credentials` obtained through `client` (with its DPoP
    /// key, if it has one, its resource and its registration).
    public init(credentials: OAuthCredentials, client: OAuthClient) {
        self.init(
            credentials: credentials, metadata: client.metadata, clientAuthenticationMethod: client.authentication.method,
            dpopKey: client.dpop?.key as? DPoPKey)
        resource = client.resource
        registration = client.registration
    }

    /// The client identifier.
    public var clientID: String { credentials.clientID }

    enum CodingKeys: String, CodingKey {
        case credentials, metadata
        case clientAuthenticationMethod = "client_auth"
        case dpopKey = "dpop_key"
        case resource, registration
        case resourceTokens = "resource_tokens"
    }

    /// Decodes a record; `resource_tokens` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        credentials = try container.decode(OAuthCredentials.self, forKey: .credentials)
        metadata = try container.decode(ProviderMetadata.self, forKey: .metadata)
        clientAuthenticationMethod = try container.decode(ClientAuthenticationMethod.self, forKey: .clientAuthenticationMethod)
        dpopKey = try container.decodeIfPresent(DPoPKey.self, forKey: .dpopKey)
        resource = try container.decodeIfPresent(ResourceIdentifier.self, forKey: .resource)
        registration = try container.decodeIfPresent(ClientRegistration.self, forKey: .registration)
        resourceTokens = try container.decodeIfPresent([ResourceToken].self, forKey: .resourceTokens) ?? []
    }

    /// Encodes the record; `resource_tokens` only when there are any.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(credentials, forKey: .credentials)
        try container.encode(metadata, forKey: .metadata)
        try container.encode(clientAuthenticationMethod, forKey: .clientAuthenticationMethod)
        try container.encodeIfPresent(dpopKey, forKey: .dpopKey)
        try container.encodeIfPresent(resource, forKey: .resource)
        try container.encodeIfPresent(registration, forKey: .registration)
        if !resourceTokens.isEmpty { try container.encode(resourceTokens, forKey: .resourceTokens) }
    }

    /// The token held for `resource`, if any.
    public func resourceToken(for resource: ResourceIdentifier) -> ResourceToken? {
        resourceTokens.first { $0.resource == resource }
    }

    /// This record with `token` in place of the one held for its resource.
    func holding(_ token: ResourceToken) -> SessionRecord {
        var copy = self
        copy.resourceTokens.removeAll { $0.resource == token.resource }
        copy.resourceTokens.append(token)
        return copy
    }

    /// The record of `credentials` refreshed from this one: the new
    /// credentials with this record's tokens for other resources.
    func refreshed(to credentials: OAuthCredentials, client: OAuthClient) -> SessionRecord {
        var record = SessionRecord(credentials: credentials, client: client)
        record.resourceTokens = resourceTokens
        return record
    }

    /// A record of credentials stored in the first format (no metadata).
    static func legacy(_ credentials: OAuthCredentials) -> SessionRecord {
        // Placeholder endpoints: never used, because `hasMetadata` is false.
        let unknown = URL(string: "urn:authflow:unknown-endpoint")!
        var record = SessionRecord(
            credentials: credentials,
            metadata: ProviderMetadata(issuer: credentials.issuer, authorizationEndpoint: unknown, tokenEndpoint: unknown),
            clientAuthenticationMethod: .none)
        record.hasMetadata = false
        return record
    }
}

extension SessionRecord: CustomStringConvertible {
    /// Redacts every token.
    public var description: String {
        "SessionRecord(\(credentials), client_auth: \(clientAuthenticationMethod)\(resource.map { ", resource: \($0)" } ?? "")"
            + (resourceTokens.isEmpty ? ")" : ", resource_tokens: \(resourceTokens.map(\.resource.description).joined(separator: " ")))")
    }
}
