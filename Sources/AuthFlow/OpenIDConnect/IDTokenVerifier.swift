public import Foundation

/// Verifies ID tokens: signature (JWKS or, for confidential clients, HMAC
/// with the client secret), then every claim rule of OIDC Core §3.1.3.7.
public struct IDTokenVerifier: Sendable {
    /// The signature check.
    package let signature: JWSSignatureVerifier

    /// Keys of the issuer, when it has a `jwks_uri`.
    public var keys: KeySetCache? { signature.keys }

    /// Creates a verifier. `acceptedAlgorithms` defaults to every asymmetric
    /// algorithm AuthFlow supports, plus HS256/384/512 when a secret is given;
    /// `providerAlgorithms` is the provider's `id_token_signing_alg_values_supported`.
    public init(keys: KeySetCache?, clientSecret: String?, acceptedAlgorithms: Set<String>? = nil, providerAlgorithms: [String]? = nil) {
        signature = JWSSignatureVerifier(
            keys: keys, clientSecret: clientSecret, acceptedAlgorithms: acceptedAlgorithms,
            providerAlgorithms: providerAlgorithms)
    }

    /// Verifies `token` and returns its claims.
    ///
    /// Tokens are read by a scan that types only the claims ``IDTokenClaims``
    /// has properties for and checks the rest without building it; whatever
    /// the scan does not read exactly as `CompactJWS` would goes through
    /// `CompactJWS` instead, so both paths accept and refuse the same tokens.
    public func verify(_ token: String, rules: IDTokenRules, accessToken: String?, now: Date = Date()) async throws -> IDTokenClaims {
        let claims: IDTokenClaims
        let algorithm: String
        if let verified = try Self.verifyWithoutFetching(token, signature) {
            claims = verified.claims
            algorithm = verified.algorithm.name
        } else {
            let (jws, checked) = try await signature.verify(token)
            claims = try IDTokenClaims(claims: jws.claims)
            algorithm = checked
        }
        try rules.check(claims, now: now)
        if let accessToken { try IDTokenRules.checkAccessTokenHash(claims, accessToken: accessToken, algorithm: algorithm) }
        return claims
    }

    /// The common case in one synchronous step: the scan, and the signature
    /// checked with the client secret or a cached key. Nil when the full path
    /// must decide: a token the scan leaves to the full parser, or one whose
    /// keys must be fetched first (the full path then gives the same result).
    /// Static, so that the scan's closure captures only the signature check.
    private static func verifyWithoutFetching(_ token: String, _ signature: JWSSignatureVerifier) throws -> ScannedVerification? {
        var verified: ScannedVerification?
        _ = try ScannedIDToken.scan(token) { scanned in
            guard let algorithm = try signature.verifyWithoutFetching(scanned) else { return }
            verified = ScannedVerification(claims: try IDTokenClaims(scanned.claims), algorithm: algorithm)
        }
        return verified
    }

    private struct ScannedVerification {
        let claims: IDTokenClaims
        let algorithm: JWSAlgorithm
    }
}
