import Crypto

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The rules of a DPoP proof a server receives (RFC 9449 §4.3, §7.1, §8), in
/// one place for every server in this repository: the embedded provider's
/// token, PAR and userinfo endpoints and the API middleware.
///
/// Checks one proof: `typ` `dpop+jwt`, an accepted asymmetric `alg`, a
/// public `jwk` (``PublicJWKRules``, no `kid` beside it) that verifies the
/// signature, `htm`, `htu` (compared normalised, ``DPoPTarget``), `iat`
/// within ``maximumSkew`` of now, a `jti`, `ath` for the access token when
/// there is one, and the server's nonce when it requires one. Whether the
/// `jti` was seen before is the caller's: it owns the replay store.
package struct DPoPProofVerifier: Sendable {
    /// Why a proof was refused.
    package struct Failure: Error, Sendable, Equatable {
        /// `invalid_dpop_proof` or `use_dpop_nonce`.
        package let error: String
        /// What was wrong, without the proof or the token.
        package let message: String

        static func invalid(_ message: String) -> Failure { Failure(error: "invalid_dpop_proof", message: message) }
    }

    /// What a valid proof leaves to its caller.
    package struct Proof: Sendable, Equatable {
        /// The JWK SHA-256 thumbprint (RFC 7638) of the proof's key.
        package let thumbprint: String
        /// `jti`, for the replay check.
        package let proofID: String
        /// `iat`.
        package let issuedAt: Date
    }

    /// The algorithms a proof may use.
    package let acceptedAlgorithms: Set<String>
    /// How far `iat` may be from now, either way.
    package let maximumSkew: TimeInterval

    /// Every asymmetric algorithm AuthFlow verifies.
    package static let asymmetricAlgorithms: Set<String> = JWSAlgorithm.asymmetricNames

    /// A verifier for `acceptedAlgorithms` (symmetric ones are dropped) and an `iat` window of `maximumSkew` seconds.
    package init(acceptedAlgorithms: Set<String> = DPoPProofVerifier.asymmetricAlgorithms, maximumSkew: TimeInterval = 60) {
        self.acceptedAlgorithms = acceptedAlgorithms.intersection(JWSAlgorithm.asymmetricNames)
        self.maximumSkew = maximumSkew
    }

    /// Checks the values of a request's `DPoP` header fields; nil when there are none.
    /// - Parameters:
    ///   - proofs: every `DPoP` field value of the request (more than one is refused).
    ///   - method: the request's method.
    ///   - url: the absolute URL the request was sent to (query and fragment are ignored).
    ///   - accessToken: the access token the request carries, when it carries one: `ath` must be its hash.
    ///   - nonces: the nonces the server accepts now, when it requires one (empty: none required).
    package func verify(
        _ proofs: [String], method: String, url: String, accessToken: String? = nil, nonces: [String] = [], now: Date = Date()
    ) throws(Failure) -> Proof? {
        guard !proofs.isEmpty else { return nil }
        guard proofs.count == 1 else { throw .invalid("exactly one DPoP proof is allowed") }
        guard let jws = try? CompactJWS(proofs[0]) else { throw .invalid("the DPoP proof is not a JWS") }
        let header = jws.headerMembers
        guard jws.type == "dpop+jwt" else { throw .invalid("the DPoP proof's typ must be dpop+jwt") }
        guard case .object(let jwk)? = header.value("jwk") else { throw .invalid("the DPoP proof's header must carry a public jwk") }
        if let violation = PublicJWKRules.violation(in: jwk) { throw .invalid("the DPoP proof's jwk is not a public key: \(violation)") }
        // The key is the jwk itself (RFC 9449 §4.2); a kid would name some other key.
        guard !header.contains("kid") else { throw .invalid("the DPoP proof's header must not carry a kid: its key is the jwk") }
        guard let name = jws.algorithm, acceptedAlgorithms.contains(name), let algorithm = JWSAlgorithm(name: name) else {
            throw .invalid("the DPoP proof's algorithm \(jws.algorithm ?? "(none)") is not accepted")
        }
        guard let key = JSONWebKey(jwk), let thumbprint = PublicJWK.thumbprint(of: jwk) else {
            throw .invalid("the DPoP proof's jwk is not a usable key")
        }
        guard key.fits(algorithm), !jws.hasCriticalHeader,
            (try? JWSSignatureVerifier.verify(jws, algorithm: algorithm, key: key)) == true
        else {
            throw .invalid("the DPoP proof's signature is invalid")
        }
        let claims = jws.claimMembers
        guard claims.string("htm", equals: method) else { throw .invalid("the DPoP proof's htm is not \(method)") }
        // RFC 9449 §4.3: compared normalised (scheme and host case, default port, dot segments), query and
        // fragment ignored; an htu with userinfo is refused.
        guard let htu = claims.string("htu"), let target = DPoPTarget.normalized(htu), target == DPoPTarget.normalized(url) else {
            throw .invalid("the DPoP proof's htu is not \(DPoPTarget.htu(of: url))")
        }
        guard let iat = claims.number("iat"), abs(iat - now.timeIntervalSince1970) <= maximumSkew else {
            throw .invalid("the DPoP proof's iat is missing or more than \(Int(maximumSkew)) s from now")
        }
        guard let jti = claims.string("jti"), !jti.isEmpty else { throw .invalid("the DPoP proof has no jti") }
        if let accessToken {
            let ath = Base64URL.encode(Array(SHA256.hash(data: Array(accessToken.utf8))))
            guard claims.string("ath", equals: ath) else { throw .invalid("the DPoP proof's ath does not match the access token") }
        }
        if !nonces.isEmpty, !nonces.contains(where: { claims.string("nonce", equals: $0) }) {
            throw Failure(error: "use_dpop_nonce", message: "the DPoP proof must carry the server's nonce")
        }
        return Proof(thumbprint: thumbprint, proofID: jti, issuedAt: Date(timeIntervalSince1970: iat))
    }
}
