#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An access token a session holds for one protected resource (RFC 8707)
/// beside its own: what ``AuthSession/resourceToken(for:using:minimumValidity:rejecting:)``
/// hands out, and what the session's ``SessionRecord`` keeps, one per
/// resource.
///
/// It never holds a refresh token or an ID token: a refresh token a
/// provider rotates while issuing it replaces the session's own, and the
/// token is renewed the way it was obtained (``grant``).
public struct ResourceToken: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The resource the token is for, and the only one it is sent to.
    public var resource: ResourceIdentifier
    /// The token response, without refresh token or ID token.
    public var token: TokenResponse
    /// How the token was obtained (``ResourceTokenGrant/name``): `refresh_token`,
    /// `token_exchange` or `identity_assertion`.
    public var grant: String

    /// A token for `resource` from `token` (its refresh token and ID token
    /// are dropped), obtained by `grant`.
    public init(resource: ResourceIdentifier, token: TokenResponse, grant: String) {
        var token = token
        token.refreshToken = nil
        token.idToken = nil
        self.resource = resource
        self.token = token
        self.grant = grant
    }

    /// The access token. Secret.
    public var accessToken: String { token.accessToken }
    /// When the access token expires, when known.
    public var expiresAt: Date? { token.expiresAt }
    /// The scopes granted.
    public var scopes: [String] { token.scopes }

    /// Whether the token must be renewed before use: it is `rejected` (a
    /// resource server refused it), lacks one of `scopes`, or expires within
    /// `minimumValidity` (else the leeway, as for the session's own token).
    func needsRenewal(rejected: String?, scopes wanted: [String], minimumValidity: TimeInterval?, leeway: TimeInterval, now: Date)
        -> Bool
    {
        if let rejected, constantTimeEquals(rejected, accessToken) { return true }
        if !wanted.allSatisfy(scopes.contains) { return true }
        return TokenValidity.needsRefresh(credentials, minimumValidity: minimumValidity, leeway: leeway, now: now)
    }

    /// Why an access token issued for `resource` must not be kept or sent:
    /// it is a JWT whose `aud` does not name the resource (a provider that
    /// ignored the `resource` or `audience` asked for and issued a token for
    /// its default audience, as Auth0 does for an audience outside the
    /// application's refresh token policies). Nil for a JWT for the
    /// resource, and for an opaque token, which a client cannot read.
    static func audienceRefusal(_ token: TokenResponse, for resource: ResourceIdentifier) -> AuthFlowError? {
        guard let jws = try? CompactJWS(token.accessToken), let aud = jws.claims["aud"] else { return nil }
        let audiences = aud.arrayValue?.compactMap(\.stringValue) ?? aud.stringValue.map { [$0] } ?? []
        // The identifier as sent, with or without a trailing `/` (servers differ in how they write `aud`).
        let name = resource.description
        let names = [name, name.hasSuffix("/") ? String(name.dropLast()) : name + "/"]
        guard !audiences.contains(where: { audience in names.contains { audience.hasSameBytes(as: $0) } }) else { return nil }
        return AuthFlowError(
            .invalidResponse,
            "the provider issued a token for \(audiences.joined(separator: " ")), not for \(resource): it is neither kept nor sent",
            recovery:
                "Let this client get tokens for the resource at the provider (for Auth0, in the application's refresh token policies).")
    }

    /// The token in the shape the session's sending and validity rules take.
    var credentials: OAuthCredentials {
        OAuthCredentials(issuer: nil, clientID: "", token: token, idToken: nil)
    }

    enum CodingKeys: String, CodingKey {
        case resource, token, grant
    }

    /// The resource and how the token was obtained; the token is redacted.
    public var description: String {
        "ResourceToken(resource: \(resource), grant: \(grant), \(token))"
    }
}
