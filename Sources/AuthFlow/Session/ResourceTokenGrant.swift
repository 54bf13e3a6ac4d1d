/// How an ``AuthSession`` obtains a token for another protected resource
/// than its own (``AuthSession/resourceToken(for:using:minimumValidity:rejecting:)``).
///
/// - ``refreshToken``: the session's refresh token with the RFC 8707
///   `resource` parameter (RFC 8707 §2.2). One refresh token serves every
///   resource the grant covers (Auth0's Multi-Resource Refresh Token,
///   Okta, Keycloak, the embedded provider). A refresh token rotated on the
///   way replaces the session's own, under the store's lock.
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
        case refreshToken
        case tokenExchange
        case identityAssertion(OAuthClient)
    }

    let kind: Kind
    /// The scopes asked for; none lets the provider choose (usually the
    /// session's grant). A held token without one of them is renewed.
    public var scopes: [String]

    /// The session's refresh token with `resource` (RFC 8707 §2.2).
    public static let refreshToken = ResourceTokenGrant(kind: .refreshToken, scopes: [])

    /// The session's refresh token with `resource`, asking for `scopes`.
    public static func refreshToken(scopes: [String]) -> ResourceTokenGrant {
        ResourceTokenGrant(kind: .refreshToken, scopes: scopes)
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

    /// The name stored with the token: `refresh_token`, `token_exchange` or
    /// `identity_assertion`.
    public var name: String {
        switch kind {
        case .refreshToken: "refresh_token"
        case .tokenExchange: "token_exchange"
        case .identityAssertion: Self.identityAssertionName
        }
    }

    static let identityAssertionName = "identity_assertion"
}
