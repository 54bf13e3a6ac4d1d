#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Signature checks of client assertions, for the embedded provider: the
/// same JWS verification the client uses for ID tokens, exposed inside the
/// package only.
package enum ClientAssertionSignature {
    /// The outcome of a check.
    package enum Outcome: Sendable, Equatable {
        case valid
        /// The algorithm is not one of those allowed (`none` included).
        case algorithmRefused
        /// No registered key fits the token's `kid` and algorithm.
        case noKey
        /// A key fits and the signature does not verify.
        case invalid
    }

    /// Checks `jws` with the registered public keys (`keys`, a JWK Set
    /// document) or, for HMAC algorithms, with `secret`; `allowed` names the
    /// algorithms the method may use.
    package static func check(_ jws: CompactJWS, allowed: Set<String>, keys: Data?, secret: String?) -> Outcome {
        guard let name = jws.algorithm, allowed.contains(name), let algorithm = JWSAlgorithm(name: name) else { return .algorithmRefused }
        if jws.hasCriticalHeader { return .invalid }
        if algorithm.isSymmetric {
            guard let secret else { return .noKey }
            return JWSSignatureVerifier.verifyHMAC(jws, algorithm: algorithm, secret: secret) ? .valid : .invalid
        }
        guard let keys, let set = try? JSONWebKeySet(json: keys) else { return .noKey }
        var fitted = false
        for key in set.keys where key.fits(keyID: jws.keyID, algorithm: algorithm) {
            fitted = true
            if (try? JWSSignatureVerifier.verify(jws, algorithm: algorithm, key: key)) == true { return .valid }
        }
        return fitted ? .invalid : .noKey
    }
}
