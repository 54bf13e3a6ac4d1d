#if Hummingbird // the Hummingbird package trait
import AuthFlow
import Foundation

/// RFC 9068 §4: a JWT access token's signature with the issuer's JWK Set
/// (the engine's ``JWTVerifier`` and ``KeySetCache``: unknown `kid` → one
/// bounded refetch), `iss`, `aud` = the API's resource identifier, `exp`,
/// `nbf` and `iat` with leeway, then `typ` `at+jwt` (or
/// `application/at+jwt`), `client_id` and `sub`.
struct JWTAccessTokenRules: Sendable {
    let verifier: JWTVerifier

    func verify(_ token: String, scheme: AuthorizationScheme, now: Date = Date()) async throws(AccessFailure) -> VerifiedAccessToken {
        let jwt: VerifiedJWT
        do {
            jwt = try await verifier.verify(token, now: now)
        } catch let error as AuthFlowError where error.category == .jwtInvalid || error.category == .idTokenInvalid {
            throw .invalidToken(error.message, scheme: scheme)
        } catch {
            throw .unavailable("the issuer's keys could not be read")
        }
        guard let typ = jwt.header["typ"]?.stringValue?.lowercased(), typ == "at+jwt" || typ == "application/at+jwt" else {
            throw .invalidToken("the token's typ is not at+jwt (RFC 9068)", scheme: scheme)
        }
        let claims = jwt.claims
        guard let clientID = claims["client_id"]?.stringValue else { throw .invalidToken("the token has no client_id", scheme: scheme) }
        guard let subject = claims["sub"]?.stringValue else { throw .invalidToken("the token has no sub", scheme: scheme) }
        guard claims["iat"]?.numberValue != nil else { throw .invalidToken("the token has no iat", scheme: scheme) }
        let jkt = try Self.confirmation(claims, scheme: scheme)
        return VerifiedAccessToken(
            subject: subject, clientID: clientID, scopes: Self.scopes(claims["scope"]), dpopThumbprint: jkt,
            expiresAt: jwt.expiresAt, source: .jwt, claims: AccessTokenClaims(claims))
    }

    /// `scope`, a space-separated string (RFC 9068 §2.2.3, RFC 7662 §2.2).
    static func scopes(_ value: JSONMemberValue?) -> Set<String> {
        Set((value?.stringValue ?? "").split(separator: " ").map(String.init))
    }

    /// `cnf.jkt` (RFC 9449 §6.1), when the token is DPoP-bound.
    static func confirmation(_ claims: [String: JSONMemberValue], scheme: AuthorizationScheme) throws(AccessFailure) -> String? {
        guard let cnf = claims["cnf"] else { return nil }
        guard let jkt = cnf.objectValue?["jkt"] else { return nil }
        guard let thumbprint = jkt.stringValue, !thumbprint.isEmpty else {
            throw .invalidToken("the token's cnf.jkt is not a string", scheme: scheme)
        }
        return thumbprint
    }
}
#endif
