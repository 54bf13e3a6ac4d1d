import Foundation

/// Verifies ID tokens: signature (JWKS or, for confidential clients, HMAC
/// with the client secret), then every claim rule of OIDC Core §3.1.3.7.
public struct IDTokenVerifier: Sendable {
    /// Keys of the issuer, when it has a `jwks_uri`.
    public let keys: KeySetCache?
    /// Algorithms this client accepts, before intersecting with the provider's list.
    public let acceptedAlgorithms: Set<String>
    /// The provider's `id_token_signing_alg_values_supported`, when published.
    public let providerAlgorithms: Set<String>?
    /// The client secret, which is the key for HS256/384/512.
    let clientSecret: String?

    /// Creates a verifier. `acceptedAlgorithms` defaults to every asymmetric
    /// algorithm AuthFlow supports, plus HS256/384/512 when a secret is given.
    public init(keys: KeySetCache?, clientSecret: String?, acceptedAlgorithms: Set<String>? = nil, providerAlgorithms: [String]? = nil) {
        self.keys = keys
        self.clientSecret = clientSecret
        let defaults = JWSVerifier.asymmetric.union(clientSecret == nil ? [] : JWSVerifier.symmetric)
        self.acceptedAlgorithms = acceptedAlgorithms ?? defaults
        self.providerAlgorithms = providerAlgorithms.map(Set.init)
    }

    /// Verifies `token` and returns its claims.
    public func verify(_ token: String, rules: IDTokenRules, accessToken: String?, now: Date = Date()) async throws -> IDTokenClaims {
        let jws = try CompactJWS(token)
        let algorithm = try checkedAlgorithm(jws)
        if jws.header["crit"] != nil {
            throw AuthFlowError.idToken(.malformed, "the ID token has critical header extensions AuthFlow does not understand")
        }
        if JWSVerifier.symmetric.contains(algorithm) {
            guard let clientSecret else { throw AuthFlowError.idToken(.algorithm, "\(algorithm) needs a client secret; this is a public client") }
            guard JWSVerifier.verifyHMAC(jws, algorithm: algorithm, secret: clientSecret) else {
                throw AuthFlowError.idToken(.signature, "the ID token's signature is invalid")
            }
        } else {
            try await verifyWithKeys(jws, algorithm: algorithm)
        }
        let claims = try IDTokenClaims(claims: jws.claims)
        try rules.check(claims, now: now)
        if let accessToken { try IDTokenRules.checkAccessTokenHash(claims, accessToken: accessToken, algorithm: algorithm) }
        return claims
    }

    /// The token's `alg`, if this client and the provider accept it. The header
    /// never widens the set; `none` is always refused.
    func checkedAlgorithm(_ jws: CompactJWS) throws -> String {
        guard let algorithm = jws.algorithm else { throw AuthFlowError.idToken(.malformed, "the ID token has no alg") }
        guard algorithm != "none" else { throw AuthFlowError.idToken(.algorithm, "unsigned ID tokens (alg none) are refused") }
        if JWSVerifier.symmetric.contains(algorithm), clientSecret == nil {
            throw AuthFlowError.idToken(.algorithm, "\(algorithm) needs a client secret; this is a public client")
        }
        guard acceptedAlgorithms.contains(algorithm), JWSVerifier.asymmetric.union(JWSVerifier.symmetric).contains(algorithm) else {
            throw AuthFlowError.idToken(.algorithm, "the ID token algorithm \(algorithm) is not accepted")
        }
        if let providerAlgorithms, !providerAlgorithms.contains(algorithm) {
            throw AuthFlowError.idToken(.algorithm, "the provider does not list \(algorithm) for ID tokens")
        }
        return algorithm
    }

    private func verifyWithKeys(_ jws: CompactJWS, algorithm: String) async throws {
        guard let keys else { throw AuthFlowError.idToken(.keyNotFound, "the provider publishes no jwks_uri") }
        var candidates = try await keys.keySet().candidates(keyID: jws.keyID, algorithm: algorithm)
        if candidates.isEmpty, let refreshed = try await keys.refetchForUnknownKey() {
            candidates = refreshed.candidates(keyID: jws.keyID, algorithm: algorithm)
        }
        guard !candidates.isEmpty else {
            throw AuthFlowError.idToken(.keyNotFound, "no key in the provider's JWK Set fits the ID token")
        }
        for key in candidates where try JWSVerifier.verify(jws, algorithm: algorithm, key: key) { return }
        throw AuthFlowError.idToken(.signature, "the ID token's signature is invalid")
    }
}
