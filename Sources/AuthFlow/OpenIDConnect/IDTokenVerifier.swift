#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
    /// The token is read in place (`CompactJWS`); the claims are a typed view
    /// over its payload, whose strings are made only when read.
    public func verify(_ token: String, rules: IDTokenRules, accessToken: String?, now: Date = Date()) async throws -> IDTokenClaims {
        let jws = try CompactJWS(token)
        let algorithm = try await signature.verifySignature(of: jws)
        let claims = try IDTokenClaims(jws.claimMembers)
        try rules.check(claims, now: now)
        if let accessToken { try IDTokenRules.checkAccessTokenHash(claims, accessToken: accessToken, algorithm: algorithm.name) }
        return claims
    }
}
