#if EmbeddedProvider // the EmbeddedProvider package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A client registered with the ``EmbeddedProvider``.
///
/// Public clients (native apps, the CLI) authenticate with `client_id` alone
/// and must use PKCE; confidential clients authenticate with their secret by
/// the one method they are registered for.
public struct ProviderClient: Sendable, Equatable {
    /// How a client authenticates at the token, revocation and introspection endpoints.
    public enum Authentication: String, Sendable, Codable, CaseIterable {
        /// A public client: `client_id` in the form body, no secret.
        case none
        /// HTTP Basic with the form-urlencoded id and secret (RFC 6749 §2.3.1).
        case clientSecretBasic = "client_secret_basic"
        /// `client_id` and `client_secret` in the form body.
        case clientSecretPost = "client_secret_post"
        /// A JWT signed with one of the client's registered keys (``ProviderClient/jwks``), RFC 7523 §2.2.
        case privateKeyJWT = "private_key_jwt"
        /// A JWT signed with HS256 keyed by the client secret.
        case clientSecretJWT = "client_secret_jwt"

        /// Whether the method needs the client secret.
        var usesSecret: Bool { self == .clientSecretBasic || self == .clientSecretPost || self == .clientSecretJWT }
    }

    /// The client identifier.
    public var id: String
    /// The secret of a confidential client; `nil` for a public one.
    public var secret: String?
    /// The one authentication method this client uses.
    public var authentication: Authentication
    /// Registered redirect URIs, matched exactly; a registered
    /// `http://127.0.0.1/…` or `http://[::1]/…` URI accepts any port (RFC 8252 §7.3).
    public var redirectURIs: [String]
    /// Where the end-session endpoint may send the user back to (same matching rules).
    public var postLogoutRedirectURIs: [String]
    /// Grant types the client may use: `authorization_code`, `refresh_token`,
    /// `client_credentials`, `urn:ietf:params:oauth:grant-type:device_code`,
    /// `urn:ietf:params:oauth:grant-type:token-exchange` (with a
    /// ``TokenExchangePolicy`` rule), `urn:openid:params:grant-type:ciba`
    /// (confidential clients only).
    public var grantTypes: Set<String>
    /// Scopes the client may request.
    public var scopes: Set<String>
    /// The algorithm its ID tokens are signed with: `RS256` or `ES256`.
    public var idTokenSigningAlgorithm: SigningAlgorithm
    /// The client's public keys, a JWK Set document (`{"keys": [...]}`):
    /// what its `private_key_jwt` assertions are checked against.
    public var jwks: JSONMemberValue?
    /// Whether authorization requests must be pushed first (RFC 9126 §6,
    /// `require_pushed_authorization_requests`).
    public var requirePushedAuthorizationRequests: Bool
    /// `backchannel_client_notification_endpoint` (OpenID CIBA Core 1.0 §4):
    /// when set, the client uses ping mode, and the provider posts
    /// `{"auth_req_id": …}` there with the request's
    /// `client_notification_token` once the user has decided; https, or
    /// http on a loopback host. `nil`: poll mode.
    public var backchannelNotificationEndpoint: URL? = nil

    /// Creates a client registration.
    public init(
        id: String, secret: String? = nil, authentication: Authentication? = nil, redirectURIs: [String] = [],
        postLogoutRedirectURIs: [String]? = nil, grantTypes: Set<String> = [GrantType.authorizationCode, GrantType.refreshToken],
        scopes: Set<String> = ["openid", "profile", "email", "offline_access"],
        idTokenSigningAlgorithm: SigningAlgorithm = .rs256, jwks: JSONMemberValue? = nil,
        requirePushedAuthorizationRequests: Bool = false
    ) {
        self.id = id
        self.secret = secret
        self.authentication = authentication ?? (secret == nil ? (jwks == nil ? .none : .privateKeyJWT) : .clientSecretBasic)
        self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs ?? redirectURIs
        self.grantTypes = grantTypes
        self.scopes = scopes
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
        self.jwks = jwks
        self.requirePushedAuthorizationRequests = requirePushedAuthorizationRequests
    }

    /// Whether this is a confidential client (it has a secret).
    public var isConfidential: Bool { authentication != .none }
}

/// The grant type names the provider knows.
public enum GrantType {
    /// RFC 6749 §4.1.
    public static let authorizationCode = "authorization_code"
    /// RFC 6749 §6.
    public static let refreshToken = "refresh_token"
    /// RFC 6749 §4.4.
    public static let clientCredentials = "client_credentials"
    /// RFC 8628 §3.4.
    public static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    /// RFC 8693 §2.1 (see ``TokenExchangePolicy``).
    public static let tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// OpenID CIBA Core 1.0 §10.1: the token request of a backchannel authentication.
    public static let ciba = "urn:openid:params:grant-type:ciba"
    /// RFC 7523 §2.1: the JWT bearer grant, for Identity Assertion JWT
    /// Authorization Grants (see ``ProviderConfiguration/trustedIdentityProviders``).
    public static let jwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// Every grant type above.
    public static let all: [String] = [authorizationCode, refreshToken, clientCredentials, deviceCode, tokenExchange, ciba, jwtBearer]
}

extension ProviderClient {
    /// One line for `authflow provider serve`: the id, how it authenticates
    /// (its secret shown, since this is a local development server that
    /// prints its users' passwords too), and its redirect URIs.
    package var listing: String {
        let authentication: String =
            switch self.authentication {
            case .none: "(public)"
            case .privateKeyJWT:
                "(private_key_jwt, \(jwks?.objectValue?["keys"]?.arrayValue?.count ?? 0) registered key(s))"
            case .clientSecretBasic, .clientSecretPost, .clientSecretJWT:
                "secret=\(secret ?? "") (\(self.authentication.rawValue))"
            }
        return "client: \(id) \(authentication) redirect_uris=\(redirectURIs.joined(separator: ","))"
    }
}
#endif
