#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks the signature of a compact JWS from one issuer: the algorithm
/// against the accepted set (never widened by the token's header), then the
/// signature with a key from the issuer's JWK Set — refetched once when the
/// token names a key the cached set lacks — or, for HS256/384/512, with the
/// client secret.
package struct JWSSignatureVerifier: Sendable {
    /// Keys of the issuer, when it has a `jwks_uri`.
    public var keys: KeySetCache? { policy.keys }
    /// Algorithms accepted, before intersecting with ``providerAlgorithms``.
    public var acceptedAlgorithms: Set<String> { policy.acceptedAlgorithms }
    /// What the provider publishes for this kind of token, when it does.
    public var providerAlgorithms: Set<String>? { policy.providerAlgorithms }
    var clientSecret: String? { policy.clientSecret }
    /// Every algorithm that passes ``checkedAlgorithm(_:)``: the common case is one mask test.
    private var allowedAlgorithms: JWSAlgorithmSet { policy.allowedAlgorithms }
    /// All of it behind one reference, so that copying a verifier (into a
    /// closure, a task, another verifier) is one retain.
    private let policy: Policy

    private final class Policy: Sendable {
        let keys: KeySetCache?
        let acceptedAlgorithms: Set<String>
        let providerAlgorithms: Set<String>?
        let clientSecret: String?
        let allowedAlgorithms: JWSAlgorithmSet

        init(keys: KeySetCache?, acceptedAlgorithms: Set<String>, providerAlgorithms: Set<String>?, clientSecret: String?) {
            self.keys = keys
            self.acceptedAlgorithms = acceptedAlgorithms
            self.providerAlgorithms = providerAlgorithms
            self.clientSecret = clientSecret
            var allowed = JWSAlgorithmSet(names: acceptedAlgorithms)
            if let providerAlgorithms { allowed = allowed.intersection(JWSAlgorithmSet(names: providerAlgorithms)) }
            if clientSecret == nil { allowed = allowed.subtracting(.symmetric) }
            allowedAlgorithms = allowed
        }
    }

    /// Creates a verifier. `acceptedAlgorithms` defaults to every asymmetric
    /// algorithm AuthFlow supports (RS/PS 256/384/512, ES256/384, EdDSA),
    /// plus HS256/384/512 when a client secret is given.
    public init(keys: KeySetCache?, clientSecret: String?, acceptedAlgorithms: Set<String>? = nil, providerAlgorithms: [String]? = nil) {
        let defaults = JWSAlgorithm.asymmetricNames.union(clientSecret == nil ? [] : JWSAlgorithm.symmetricNames)
        policy = Policy(
            keys: keys, acceptedAlgorithms: acceptedAlgorithms ?? defaults, providerAlgorithms: providerAlgorithms.map(Set.init),
            clientSecret: clientSecret)
    }

    /// Reads `token` and checks its signature; returns it with its algorithm.
    public func verify(_ token: String) async throws -> (jws: CompactJWS, algorithm: String) {
        let jws = try CompactJWS(token)
        return (jws, try await verifySignature(of: jws).name)
    }

    /// Checks the signature of a read JWS; returns its algorithm. The common
    /// case (client secret, or a cached key that fits) does not suspend.
    func verifySignature(of jws: CompactJWS) async throws -> JWSAlgorithm {
        if let algorithm = try verifyWithoutFetching(jws) { return algorithm }
        let algorithm = try checkedAlgorithm(jws)
        try await verifyWithKeys(jws, algorithm: algorithm)
        return algorithm
    }

    /// The common case, without a suspension point: checks the algorithm and
    /// the signature with the client secret (HMAC) or the cached JWK Set and
    /// returns the algorithm; nil when the keys must be fetched first (no set
    /// cached, or no cached key fits the token).
    func verifyWithoutFetching(_ jws: CompactJWS) throws -> JWSAlgorithm? {
        let algorithm = try checkedAlgorithm(jws)
        return try verifyWithoutFetching(jws, algorithm: algorithm) ? algorithm : nil
    }

    /// The signature check after the algorithm's: true when verified with the
    /// client secret or a cached key, false when the keys must be fetched.
    private func verifyWithoutFetching(_ jws: CompactJWS, algorithm: JWSAlgorithm) throws -> Bool {
        if jws.hasCriticalHeader {
            throw AuthFlowError.idToken(.malformed, "the token has critical header extensions AuthFlow does not understand")
        }
        if let clientSecret, algorithm.isSymmetric {
            guard Self.verifyHMAC(jws, algorithm: algorithm, secret: clientSecret) else {
                throw AuthFlowError.idToken(.signature, "the token's signature is invalid")
            }
            return true
        }
        guard let cached = keys?.currentKeySet() else { return false }
        return try verify(jws, algorithm: algorithm, with: cached)
    }

    /// The token's `alg`, if this client and the provider accept it; `none`
    /// is always refused and HMAC needs a client secret.
    func checkedAlgorithm(_ jws: CompactJWS) throws -> JWSAlgorithm {
        if let known = jws.knownAlgorithm, allowedAlgorithms.contains(known) { return known }
        guard let algorithm = jws.algorithm else { throw AuthFlowError.idToken(.malformed, "the token has no alg") }
        // Not allowed: find the exact reason.
        guard algorithm != "none" else { throw AuthFlowError.idToken(.algorithm, "unsigned tokens (alg none) are refused") }
        let known = JWSAlgorithm(name: algorithm)
        if known?.isSymmetric == true, clientSecret == nil {
            throw AuthFlowError.idToken(.algorithm, "\(algorithm) needs a client secret; this is a public client")
        }
        guard acceptedAlgorithms.contains(algorithm), known != nil else {
            throw AuthFlowError.idToken(.algorithm, "the algorithm \(algorithm) is not accepted")
        }
        if let providerAlgorithms, !providerAlgorithms.contains(algorithm) {
            throw AuthFlowError.idToken(.algorithm, "the provider does not list \(algorithm)")
        }
        throw AuthFlowError.idToken(.algorithm, "the algorithm \(algorithm) is not accepted")
    }

    /// Verifies with the issuer's keys when the cached set did not: fetches
    /// the set when none is cached, then refetches once for an unknown key.
    private func verifyWithKeys(_ jws: CompactJWS, algorithm: JWSAlgorithm) async throws {
        guard let keys else { throw AuthFlowError.idToken(.keyNotFound, "the provider publishes no jwks_uri") }
        if keys.currentKeySet() == nil, try verify(jws, algorithm: algorithm, with: try await keys.keySet()) { return }
        guard let refreshed = try await keys.refetchForUnknownKey(), try verify(jws, algorithm: algorithm, with: refreshed) else {
            throw AuthFlowError.idToken(.keyNotFound, "no key in the provider's JWK Set fits the token")
        }
    }

    /// Checks the signature with each key of `set` that fits: true when one
    /// verifies it, false when no key fits, a `signature` error when keys fit
    /// and none verifies.
    private func verify(_ jws: CompactJWS, algorithm: JWSAlgorithm, with set: JSONWebKeySet) throws -> Bool {
        var fitted = false
        let keys = set.keys
        let keyID = jws.keyID
        // By index: the keys are read in place, not copied field by field.
        for index in keys.indices where keys[index].fits(keyID: keyID, algorithm: algorithm) {
            fitted = true
            if try Self.verify(jws, algorithm: algorithm, key: keys[index]) { return true }
        }
        if fitted { throw AuthFlowError.idToken(.signature, "the token's signature is invalid") }
        return false
    }
}
