#if Hummingbird // the Hummingbird package trait
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Who a request's access token stands for, once the middleware verified
/// it: what a route handler reads from its context
/// (``AccessTokenRequestContext/accessToken``).
public struct VerifiedAccessToken: Sendable {
    /// `sub`: the user, or the client itself for a client-credentials token.
    public let subject: String?
    /// `client_id`: the client the token was issued to.
    public let clientID: String?
    /// The scopes granted (`scope`, split on spaces), made at each call;
    /// ``grants(_:)`` reads `scope` in place.
    public var scopes: Set<String> {
        Set((claims.string("scope") ?? "").split(separator: " ").map(String.init))
    }
    /// The JWK SHA-256 thumbprint of the key the token is bound to (`cnf.jkt`),
    /// when the token is DPoP-bound; the request then carried a proof made with that key.
    public let dpopThumbprint: String?
    /// `exp`, when known.
    public let expiresAt: Date?
    /// How the token was verified.
    public let source: Source
    /// Every claim.
    public let claims: AccessTokenClaims

    /// How a token was verified.
    public enum Source: Sendable, Equatable {
        /// A JWT access token (RFC 9068), by its signature.
        case jwt
        /// An opaque token, by introspection at the authorization server (RFC 7662).
        case introspection
    }

    /// Whether every scope of `required` was granted.
    public func grants(_ required: some Sequence<String>) -> Bool {
        required.allSatisfy(claims.grants)
    }
}
#endif
