#if Hummingbird // the Hummingbird package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 9068 §4: a JWT access token's signature with the issuer's JWK Set
/// (the engine's ``JWTVerifier`` and ``KeySetCache``: unknown `kid` → one
/// bounded refetch), `iss`, `aud` = the API's resource identifier, `exp`,
/// `nbf` and `iat` with leeway, then `typ` `at+jwt` (or
/// `application/at+jwt`), `client_id` and `sub`.
struct JWTAccessTokenRules: Sendable {
    let verifier: JWTVerifier

    func verify(_ token: Substring, scheme: AuthorizationScheme, now: Date = Date()) async throws(AccessFailure) -> VerifiedAccessToken {
        let jwt: VerifiedJWT
        do {
            jwt = try await verifier.verify(token, now: now)
        } catch let error as AuthFlowError where error.category == .jwtInvalid || error.category == .idTokenInvalid {
            throw .invalidToken(error.message, scheme: scheme)
        } catch {
            throw .unavailable("the issuer's keys could not be read")
        }
        guard jwt.hasType("at+jwt") else {
            throw .invalidToken("the token's typ is not at+jwt (RFC 9068)", scheme: scheme)
        }
        guard let clientID = jwt.string("client_id") else { throw .invalidToken("the token has no client_id", scheme: scheme) }
        guard let subject = jwt.string("sub") else { throw .invalidToken("the token has no sub", scheme: scheme) }
        guard jwt.issuedAt != nil else { throw .invalidToken("the token has no iat", scheme: scheme) }
        let jkt = try Self.confirmation(jwt.claim("cnf"), scheme: scheme)
        return VerifiedAccessToken(
            subject: subject, clientID: clientID, dpopThumbprint: jkt,
            expiresAt: jwt.expiresAt, source: .jwt, claims: AccessTokenClaims(jwt))
    }

    /// `cnf.jkt` (RFC 9449 §6.1), when the token is DPoP-bound; nil when it
    /// has no `cnf`. A `cnf` that is not an object, or binds the token some
    /// other way (`x5t#S256`, RFC 8705; anything without `jkt`), is refused:
    /// this API cannot check that binding, and must not treat the token as
    /// a plain bearer token instead.
    static func confirmation(_ cnf: JSONMemberValue?, scheme: AuthorizationScheme) throws(AccessFailure) -> String? {
        guard let cnf else { return nil }
        guard let jkt = cnf.objectValue?["jkt"] else {
            throw .invalidToken("the token's cnf has no jkt: its binding cannot be checked here", scheme: scheme)
        }
        guard let thumbprint = jkt.stringValue, !thumbprint.isEmpty else {
            throw .invalidToken("the token's cnf.jkt is not a string", scheme: scheme)
        }
        return thumbprint
    }
}
#endif
