public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Verifies any JWT from a trusted issuer against the issuer's discovered
/// JWK Set: access tokens that are JWTs, or other signed statements (a
/// carrier's port tokens go through ``PortTokenVerifier``, built on it). Checks the signature (algorithm from the
/// allowed set only, key by `kid`, refetch on rotation), `iss`, `aud`, `exp`
/// (or, for tokens that carry none, an age from `iat`: ``Lifetime``), `nbf`
/// and `iat`. Failures are ``AuthFlowError/Category/jwtInvalid``
/// with the failing rule as ``AuthFlowError/reason`` (one of
/// ``AuthFlowError/Reason/jwt``).
public struct JWTVerifier: Sendable {
    /// The issuer the token must name exactly.
    public let issuer: Issuer
    /// The audience the token must include.
    public let audience: String
    /// Allowed clock skew, in seconds.
    public let leeway: TimeInterval
    /// How long a token is accepted: until its `exp` (the default), or for
    /// an age from its `iat`.
    public let lifetime: Lifetime
    /// The signature check.
    package let signature: JWSSignatureVerifier

    /// Creates a verifier with a known key set, for tokens that carry `exp`.
    public init(
        issuer: Issuer, audience: String, keys: KeySetCache,
        algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"], leeway: TimeInterval = 60
    ) {
        self.init(issuer: issuer, audience: audience, keys: keys, lifetime: .expiring, algorithms: algorithms, leeway: leeway)
    }

    /// Creates a verifier with a known key set and the given ``Lifetime``.
    public init(
        issuer: Issuer, audience: String, keys: KeySetCache, lifetime: Lifetime,
        algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"], leeway: TimeInterval = 60
    ) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.lifetime = lifetime
        signature = JWSSignatureVerifier(
            keys: keys, clientSecret: nil, acceptedAlgorithms: algorithms.subtracting(JWSAlgorithm.symmetricNames))
    }

    /// Discovers `issuer` and verifies against its `jwks_uri`.
    public static func discover(
        issuer: Issuer, audience: String, algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"],
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        leeway: TimeInterval = 60, logger: Logger = .authFlow()
    ) async throws -> JWTVerifier {
        let metadata = try await ProviderMetadata.discover(issuer: issuer, transport: transport, timeout: timeout, logger: logger)
        guard let jwksURI = metadata.jwksURI else { throw AuthFlowError.configuration("the issuer publishes no jwks_uri") }
        let keys = try KeySetCache(jwksURI: jwksURI, transport: transport, timeout: timeout, logger: logger)
        return JWTVerifier(issuer: issuer, audience: audience, keys: keys, algorithms: algorithms, leeway: leeway)
    }

    /// Verifies `token` and returns its header and claims.
    ///
    /// The token is read in place (`CompactJWS`): only the claims the rules
    /// and the caller ask for are made into values.
    public func verify(_ token: String, now: Date = Date()) async throws -> VerifiedJWT {
        try await verify(token[...], now: now)
    }

    /// Verifies `token`, a part of a longer string (an `Authorization` field's value), read where it lies.
    package func verify(_ token: Substring, now: Date = Date()) async throws -> VerifiedJWT {
        let jws: CompactJWS
        let algorithm: JWSAlgorithm
        do {
            jws = try CompactJWS(reading: token)
            algorithm = try await signature.verifySignature(of: jws)
        } catch let error as AuthFlowError where error.category == .idTokenInvalid {
            // The signature check is shared with ID tokens; this is not one.
            throw AuthFlowError(
                .jwtInvalid, error.message, reason: error.reason, recovery: error.recovery, remedy: error.remedy,
                underlyingError: error.underlyingError)
        }
        let claims = jws.claimMembers
        guard claims.string("iss", equals: issuer.identifier) else { throw Self.invalid(.issuer, "the token's iss is not \(issuer)") }
        guard claims.audienceContains(audience) else { throw Self.invalid(.audience, "the token is not addressed to \(audience)") }
        let iat = claims.number("iat")
        let until = try Self.acceptedUntil(exp: claims.number("exp"), iat: iat, lifetime: lifetime, now: now, leeway: leeway)
        if let nbf = claims.number("nbf"), nbf - now.timeIntervalSince1970 > leeway {
            throw Self.invalid(.notBefore, "the token is not valid yet (nbf)")
        }
        if let iat, iat - now.timeIntervalSince1970 > leeway {
            throw Self.invalid(.issuedAt, "the token was issued in the future")
        }
        return VerifiedJWT(
            algorithm: algorithm.name, jws: jws, expiresAt: Date(timeIntervalSince1970: until),
            issuedAt: iat.map(Date.init(timeIntervalSince1970:)))
    }
}
