#if Hummingbird // the Hummingbird package trait
public import Foundation

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
        var scopes = Set<String>()
        for scope in scope.utf8.split(separator: UInt8(ascii: " ")) { scopes.insert(String(Substring(scope))) }
        return scopes
    }
    /// `scope` as the token or the introspection answer has it ("" when absent).
    let scope: String
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

    /// Whether `required` is one of the space-separated scopes of `scope`,
    /// compared byte for byte (scope tokens are ASCII, RFC 6749 §3.3).
    func grants(_ required: String) -> Bool {
        let wanted = required.utf8
        let granted = scope.utf8
        guard !wanted.isEmpty else { return false }
        var start = granted.startIndex
        while start < granted.endIndex {
            let end = granted[start...].firstIndex(of: UInt8(ascii: " ")) ?? granted.endIndex
            if granted[start..<end].elementsEqual(wanted) { return true }
            start = end < granted.endIndex ? granted.index(after: end) : end
        }
        return false
    }

    /// Whether every scope of `required` was granted.
    public func grants(_ required: some Sequence<String>) -> Bool {
        required.allSatisfy(grants)
    }
}
#endif
