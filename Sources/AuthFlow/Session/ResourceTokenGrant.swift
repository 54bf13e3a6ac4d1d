/// How an ``AuthSession`` obtains a token for another protected resource
/// than its own (``AuthSession/resourceToken(for:using:minimumValidity:rejecting:)``).
///
/// - ``refreshToken``: the session's refresh token with the RFC 8707
///   `resource` parameter (RFC 8707 §2.2): one refresh token serves every
///   resource the grant covers. A refresh token rotated on the way replaces
///   the session's own, under the store's lock.
/// - ``refreshTokenNamingAudience(scopes:)``: the same with the API named by
///   `audience`, as Auth0's Multi-Resource Refresh Token takes it.
/// - ``tokenExchange(scopes:)``: the session's access token traded at the
///   same provider (RFC 8693) for a token whose `resource` is the one asked
///   for.
/// - ``identityAssertion(at:scopes:)``: an Identity Assertion JWT
///   Authorization Grant from the session's provider (the enterprise
///   identity provider), redeemed at the resource's own authorization
///   server with the JWT bearer grant. The authorization server comes from
///   the app's configuration, never from the resource.
public struct ResourceTokenGrant: Sendable {
    enum Kind: Sendable {
        /// With the resource in `resource` (RFC 8707), or in `audience` (Auth0).
        case refreshToken(namingAudience: Bool)
        case tokenExchange
        case identityAssertion(OAuthClient)
    }

    let kind: Kind
    /// The scopes asked for; none lets the provider choose (usually the
    /// session's grant). A held token without one of them is renewed.
    public var scopes: [String]

    init(kind: Kind, scopes: [String]) {
        self.kind = kind
        self.scopes = scopes
    }

    /// The session's refresh token with `resource` (RFC 8707 §2.2).
    public static let refreshToken = ResourceTokenGrant(kind: .refreshToken(namingAudience: false), scopes: [])

    /// The session's refresh token with `resource`, asking for `scopes`.
    public static func refreshToken(scopes: [String]) -> ResourceTokenGrant {
        ResourceTokenGrant(kind: .refreshToken(namingAudience: false), scopes: scopes)
    }

    /// The session's refresh token with the resource's identifier in
    /// `audience` instead of `resource`: Auth0's Multi-Resource Refresh
    /// Token, whose APIs are named by audience. Auth0 answers an audience
    /// outside the application's refresh token policies with a token for its
    /// default audience; such a token is refused (see
    /// ``AuthSession/resourceToken(for:using:minimumValidity:rejecting:)``).
    public static func refreshTokenNamingAudience(scopes: [String] = []) -> ResourceTokenGrant {
        ResourceTokenGrant(kind: .refreshToken(namingAudience: true), scopes: scopes)
    }

    /// A token exchange (RFC 8693) of the session's access token.
    public static func tokenExchange(scopes: [String] = []) -> ResourceTokenGrant {
        ResourceTokenGrant(kind: .tokenExchange, scopes: scopes)
    }

    /// An identity assertion (ID-JAG) for `authorizationServer`, redeemed
    /// there with the JWT bearer grant; that client's own authentication is
    /// used at its token endpoint.
    public static func identityAssertion(at authorizationServer: OAuthClient, scopes: [String] = []) -> ResourceTokenGrant {
        ResourceTokenGrant(kind: .identityAssertion(authorizationServer), scopes: scopes)
    }

    /// The name stored with the token: `refresh_token`,
    /// `refresh_token_audience`, `token_exchange` or `identity_assertion`.
    public var name: String {
        switch kind {
        case .refreshToken(let namingAudience): namingAudience ? Self.audienceName : "refresh_token"
        case .tokenExchange: "token_exchange"
        case .identityAssertion: Self.identityAssertionName
        }
    }

    static let identityAssertionName = "identity_assertion"
    static let audienceName = "refresh_token_audience"

    /// The grant a token kept under `name` (``name``) is renewed with, when
    /// it is one a session renews by itself: nil for an identity
    /// assertion, whose authorization server the app configures.
    public init?(named name: String, scopes: [String] = []) {
        switch name {
        case "refresh_token": self = .refreshToken(scopes: scopes)
        case Self.audienceName: self = .refreshTokenNamingAudience(scopes: scopes)
        case "token_exchange": self = .tokenExchange(scopes: scopes)
        default: return nil
        }
    }
}
