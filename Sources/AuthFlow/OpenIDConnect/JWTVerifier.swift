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
    public let issuer: String
    /// The audience the token must include.
    public let audience: String
    /// Allowed clock skew, in seconds.
    public let leeway: TimeInterval
    /// The signature check.
    package let signature: JWSSignatureVerifier

    /// Creates a verifier with a known key set.
    public init(
        issuer: String, audience: String, keys: KeySetCache,
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
        issuer: URL, audience: String, algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"],
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        leeway: TimeInterval = 60, logger: Logger = Logger(label: "AuthFlow")
    ) async throws -> JWTVerifier {
        let metadata = try await ProviderMetadata.discover(issuer: issuer, transport: transport, timeout: timeout, logger: logger)
        guard let jwksURI = metadata.jwksURI else { throw AuthFlowError.configuration("the issuer publishes no jwks_uri") }
        let keys = try KeySetCache(jwksURI: jwksURI, transport: transport, timeout: timeout, logger: logger)
        return JWTVerifier(issuer: issuer.absoluteString, audience: audience, keys: keys, algorithms: algorithms, leeway: leeway)
    }

    /// Verifies `token` and returns its header and claims.
    public func verify(_ token: String, now: Date = Date()) async throws -> VerifiedJWT {
        let (jws, algorithm): (CompactJWS, String)
        do {
            (jws, algorithm) = try await signature.verify(token)
        } catch let error as AuthFlowError where error.category == .idTokenInvalid {
            // The signature check is shared with ID tokens; this is not one.
            throw AuthFlowError(
                .jwtInvalid, error.message, reason: error.reason, recovery: error.recovery, remedy: error.remedy,
                underlyingError: error.underlyingError)
        }
        let claims = jws.claims
        guard claims["iss"]?.stringValue == issuer else { throw Self.invalid(.issuer, "the token's iss is not \(issuer)") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let value)?: audiences = [value]
        case .array(let values)?: audiences = values.compactMap(\.stringValue)
        default: audiences = []
        }
        guard audiences.contains(audience) else { throw Self.invalid(.audience, "the token is not addressed to \(audience)") }
        guard let exp = claims["exp"]?.numberValue else { throw Self.invalid(.expired, "the token has no exp") }
        guard now.timeIntervalSince1970 - exp < leeway else { throw Self.invalid(.expired, "the token has expired") }
        if let nbf = claims["nbf"]?.numberValue, nbf - now.timeIntervalSince1970 > leeway {
            throw Self.invalid(.notBefore, "the token is not valid yet (nbf)")
        }
        if let iat = claims["iat"]?.numberValue, iat - now.timeIntervalSince1970 > leeway {
            throw Self.invalid(.issuedAt, "the token was issued in the future")
        }
        return VerifiedJWT(
            algorithm: algorithm, header: jws.header, claims: claims, audience: audiences,
            expiresAt: Date(timeIntervalSince1970: exp))
    }

    private static func invalid(_ reason: AuthFlowError.Reason, _ message: String) -> AuthFlowError {
        AuthFlowError(.jwtInvalid, message, reason: reason)
    }
}

/// A JWT whose signature and registered claims were verified.
public struct VerifiedJWT: Sendable, Equatable {
    /// The algorithm that signed it.
    public let algorithm: String
    /// The protected header.
    public let header: [String: JSONMemberValue]
    /// Every claim.
    public let claims: [String: JSONMemberValue]
    /// `aud`, as a list.
    public let audience: [String]
    /// `exp`.
    public let expiresAt: Date
    /// `iss`.
    public var issuer: String { claims["iss"]?.stringValue ?? "" }
    /// `sub`, when present.
    public var subject: String? { claims["sub"]?.stringValue }
}
