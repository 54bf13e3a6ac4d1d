public import Foundation
public import Logging

/// Verifies any JWT from a trusted issuer against the issuer's discovered
/// JWK Set: access tokens that are JWTs, or "port tokens" a carrier issues
/// when a user moves (ZenKey). Checks the signature (algorithm from the
/// allowed set only, key by `kid`, refetch on rotation), `iss`, `aud`, `exp`,
/// `nbf` and `iat`. Failures are ``AuthFlowError/Category/jwtInvalid``
/// with the failing rule as ``AuthFlowError/reason`` (one of
/// ``AuthFlowError/Reason/jwt``).
public struct JWTVerifier: Sendable {
    /// The issuer the token must name exactly.
    public let issuer: Issuer
    /// The audience the token must include.
    public let audience: String
    /// Allowed clock skew, in seconds.
    public let leeway: TimeInterval
    /// The signature check.
    package let signature: JWSSignatureVerifier

    /// Creates a verifier with a known key set.
    public init(
        issuer: Issuer, audience: String, keys: KeySetCache,
        algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"], leeway: TimeInterval = 60
    ) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        signature = JWSSignatureVerifier(
            keys: keys, clientSecret: nil, acceptedAlgorithms: algorithms.subtracting(JWSAlgorithm.symmetricNames))
    }

    /// Discovers `issuer` and verifies against its `jwks_uri`.
    public static func discover(
        issuer: Issuer, audience: String, algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"],
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        leeway: TimeInterval = 60, logger: Logger = Logger(label: "AuthFlow")
    ) async throws -> JWTVerifier {
        let metadata = try await ProviderMetadata.discover(issuer: issuer, transport: transport, timeout: timeout, logger: logger)
        guard let jwksURI = metadata.jwksURI else { throw AuthFlowError.configuration("the issuer publishes no jwks_uri") }
        let keys = try KeySetCache(jwksURI: jwksURI, transport: transport, timeout: timeout, logger: logger)
        return JWTVerifier(issuer: issuer, audience: audience, keys: keys, algorithms: algorithms, leeway: leeway)
    }

    /// Verifies `token` and returns its header and claims.
    ///
    /// Tokens are read by a scan that keeps the decoded payload and where each
    /// claim is, so that only the claims asked for are made into values; a
    /// token the scan does not read exactly as the full parser would, or whose
    /// keys must be fetched first, takes the full path, so both accept and
    /// refuse the same tokens.
    public func verify(_ token: String, now: Date = Date()) async throws -> VerifiedJWT {
        try await verify(token[...], now: now)
    }

    /// Verifies `token`, a part of a longer string (an `Authorization` field's value) that is not copied unless the full path must read it.
    package func verify(_ token: Substring, now: Date = Date()) async throws -> VerifiedJWT {
        let signed: (algorithm: String, contents: VerifiedJWT.Contents)
        do {
            if let scanned = try Self.verifyWithoutFetching(token, signature) {
                signed = scanned
            } else {
                let (jws, algorithm) = try await signature.verify(String(token))
                signed = (algorithm, .parsed(header: jws.header, claims: jws.claims))
            }
        } catch let error as AuthFlowError where error.category == .idTokenInvalid {
            // The signature check is shared with ID tokens; this is not one.
            throw AuthFlowError(
                .jwtInvalid, error.message, reason: error.reason, recovery: error.recovery, remedy: error.remedy,
                underlyingError: error.underlyingError)
        }
        let contents = signed.contents
        guard contents.string("iss", equals: issuer.identifier) else { throw Self.invalid(.issuer, "the token's iss is not \(issuer)") }
        guard contents.audienceContains(audience) else { throw Self.invalid(.audience, "the token is not addressed to \(audience)") }
        guard let exp = contents.number("exp") else { throw Self.invalid(.expired, "the token has no exp") }
        guard now.timeIntervalSince1970 - exp < leeway else { throw Self.invalid(.expired, "the token has expired") }
        if let nbf = contents.number("nbf"), nbf - now.timeIntervalSince1970 > leeway {
            throw Self.invalid(.notBefore, "the token is not valid yet (nbf)")
        }
        let iat = contents.number("iat")
        if let iat, iat - now.timeIntervalSince1970 > leeway {
            throw Self.invalid(.issuedAt, "the token was issued in the future")
        }
        return VerifiedJWT(
            algorithm: signed.algorithm, contents: contents, expiresAt: Date(timeIntervalSince1970: exp),
            issuedAt: iat.map(Date.init(timeIntervalSince1970:)))
    }

    /// The common case in one synchronous step: the scan, and the signature
    /// checked with a cached key. Nil when the full path must decide: a token
    /// the scan leaves to the full parser, or one whose keys must be fetched
    /// first. Static, so that the scan's closure captures only the signature check.
    private static func verifyWithoutFetching(
        _ token: Substring, _ signature: JWSSignatureVerifier
    ) throws -> (algorithm: String, contents: VerifiedJWT.Contents)? {
        var verified: (algorithm: String, contents: VerifiedJWT.Contents)?
        _ = try ScannedJWS.scan(token, claims: ScannedJWTClaims.scan(header:payload:)) { scanned in
            guard let algorithm = try signature.verifyWithoutFetching(scanned) else { return }
            verified = (algorithm.name, .scanned(scanned.claims, type: scanned.type))
        }
        return verified
    }

    private static func invalid(_ reason: AuthFlowError.Reason, _ message: String) -> AuthFlowError {
        AuthFlowError(.jwtInvalid, message, reason: reason)
    }
}
