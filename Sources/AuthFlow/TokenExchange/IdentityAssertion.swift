#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An Identity Assertion JWT Authorization Grant (ID-JAG,
/// draft-ietf-oauth-identity-assertion-authz-grant; the grant of MCP's
/// enterprise-managed authorization): a short-lived JWT in which an
/// enterprise identity provider asserts one user, for one client, to one
/// authorization server, for a resource of that server's.
///
/// A client gets one from the identity provider by token exchange
/// (``OAuthClient/requestIdentityAssertion(for:clientID:resource:idToken:scopes:)``)
/// and presents it at the authorization server with the JWT bearer grant
/// (``OAuthClient/redeem(_:scopes:now:)``). An authorization server reads one it
/// is given with ``verify(_:with:clientID:resource:maximumLifetime:now:)``:
/// both sides read it by the same rules.
///
/// The JWT is a credential: ``description`` and the mirror never show it.
public struct IdentityAssertion: Sendable, Equatable, CustomStringConvertible, CustomReflectable {
    /// The JWT in compact serialization.
    public let token: String
    /// `iss`: the identity provider.
    public let issuer: String
    /// `sub`: the user, as the identity provider names them.
    public let subject: String
    /// `aud`: the issuer identifier of the authorization server the grant is for.
    public let authorizationServer: String
    /// `client_id`: the client, as the authorization server knows it.
    public let clientID: String
    /// `resource`: the resources the grant is for; empty when it names none.
    public let resources: [String]
    /// `scope`, split; empty when it names none.
    public let scopes: [String]
    /// `jti`: the grant's identifier, which an authorization server accepts once.
    public let identifier: String
    /// `exp`.
    public let expiresAt: Date

    /// The JWT's `typ`: `oauth-id-jag+jwt`.
    public static let type = "oauth-id-jag+jwt"

    /// The most a grant may live, from `iat` to `exp`, unless the reader
    /// says otherwise: five minutes.
    public static let defaultMaximumLifetime: TimeInterval = 300

    /// Verifies `token` as an ID-JAG that the identity provider of
    /// `verifier` signed for the authorization server `verifier.audience`.
    ///
    /// The rules, each a ``AuthFlowError/Category/jwtInvalid`` error naming
    /// the claim:
    /// - the signature with the identity provider's keys, `iss`, `exp`,
    ///   `nbf` and `iat` (``JWTVerifier``);
    /// - `typ` `oauth-id-jag+jwt` (or with the `application/` prefix);
    /// - `aud` exactly the one authorization server (a grant addressed to
    ///   several could be replayed at each);
    /// - `client_id` exactly `clientID`; `sub` and `jti` present;
    /// - `iat` present, and at most `maximumLifetime` from `iat` to `exp`;
    /// - when `resource` is given, the grant's `resource` names it.
    ///
    /// The `jti` is not checked here for a replay: an authorization server
    /// keeps ``identifier`` until ``expiresAt`` in its ``ReplayCache``.
    public static func verify(
        _ token: String, with verifier: JWTVerifier, clientID: String, resource: String? = nil,
        maximumLifetime: TimeInterval = defaultMaximumLifetime, now: Date = Date()
    ) async throws -> IdentityAssertion {
        let jwt = try await verifier.verify(token, now: now)
        let invalid = JWTVerifier.invalid
        guard jwt.hasType(type) else { throw invalid(.malformed, "the identity assertion's typ is not \(type)") }
        guard jwt.audience.count == 1 else {
            throw invalid(.audience, "the identity assertion names more than one audience")
        }
        guard let client = jwt.string("client_id"), client.hasSameBytes(as: clientID) else {
            throw invalid(.authorizedParty, "the identity assertion is for another client (client_id)")
        }
        guard let subject = jwt.subject, !subject.isEmpty else { throw invalid(.subject, "the identity assertion has no sub") }
        guard let identifier = jwt.string("jti"), !identifier.isEmpty else {
            throw invalid(.malformed, "the identity assertion has no jti")
        }
        guard let issuedAt = jwt.issuedAt else { throw invalid(.issuedAt, "the identity assertion has no iat") }
        guard jwt.expiresAt.timeIntervalSince(issuedAt) <= maximumLifetime else {
            throw invalid(.expired, "the identity assertion lives longer than \(Int(maximumLifetime)) seconds")
        }
        let resources: [String]
        switch jwt.claim("resource") {
        case nil: resources = []
        case .string(let one)?: resources = [one]
        case .array(let many)? where many.allSatisfy({ $0.stringValue != nil }): resources = many.compactMap(\.stringValue)
        default: throw invalid(.malformed, "the identity assertion's resource is not a string or a list of strings")
        }
        if let resource, !resources.contains(where: { $0.hasSameBytes(as: resource) }) {
            throw invalid(.audience, "the identity assertion is not for the resource \(resource)")
        }
        return IdentityAssertion(
            token: token, issuer: jwt.issuer, subject: subject, authorizationServer: verifier.audience, clientID: client,
            resources: resources, scopes: jwt.string("scope").map { $0.split(separator: " ").map(String.init) } ?? [],
            identifier: identifier, expiresAt: jwt.expiresAt)
    }

    /// The grant without its JWT.
    public var description: String {
        "IdentityAssertion(issuer: \(issuer), authorizationServer: \(authorizationServer), clientID: \(clientID), "
            + "resources: \(resources), scopes: \(scopes), expiresAt: \(expiresAt), token: <redacted>)"
    }

    /// The claims without the JWT.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer, "subject": subject, "authorizationServer": authorizationServer, "clientID": clientID,
                "resources": resources, "scopes": scopes, "expiresAt": expiresAt,
            ], displayStyle: .struct)
    }
}
