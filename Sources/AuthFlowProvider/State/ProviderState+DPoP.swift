#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowHummingbird
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A DPoP failure: `invalid_dpop_proof` or `use_dpop_nonce` (RFC 9449 §5,
/// §7.1, §8), answered with the provider's current `DPoP-Nonce`.
struct DPoPFailure: Error, Sendable {
    let failure: OAuthFailure
    let nonce: String?
}

extension ProviderState {
    /// The proof in `request`'s `DPoP` header (nil when there is none),
    /// checked for `method` at `path` (RFC 9449 §4.3): one proof, `typ`
    /// `dpop+jwt`, an asymmetric `alg`, a public `jwk` (``PublicJWKRules``,
    /// no `kid` beside it) that verifies the signature, `htm`, `htu`
    /// (compared normalised), `iat` within a minute, a `jti` not seen
    /// before, `ath` for `accessToken`, and the current nonce when nonces
    /// are required. Returns the key's thumbprint.
    func checkDPoPProof(_ request: ProviderRequest, path: String, accessToken: String? = nil, now: Date = Date()) async throws(DPoPFailure)
        -> String?
    {
        let proofs = request.headers.filter { ProviderRequest.sameFieldName($0.name, "DPoP") }.map(\.value)
        let nonce = configuration.requiresDPoPNonce ? dpopNonce : nil
        let proof: DPoPProofVerifier.Proof?
        do throws(DPoPProofVerifier.Failure) {
            proof = try Self.dpopProofVerifier.verify(
                proofs, method: request.method, url: issuer + path, accessToken: accessToken, nonces: nonce.map { [$0] } ?? [], now: now)
        } catch {
            throw DPoPFailure(failure: OAuthFailure(error.error, error.message), nonce: nonce)
        }
        guard let proof else { return nil }
        let firstUse: Bool
        do {
            firstUse = try await usedProofs.firstUse(
                of: proof.replayIdentifier, until: proof.replayExpiry(maximumSkew: Self.dpopProofVerifier.maximumSkew))
        } catch {
            // Full for this key (or in all): refused rather than risk accepting a replay.
            throw DPoPFailure(failure: OAuthFailure("invalid_dpop_proof", "too many DPoP proofs at once; try again later"), nonce: nonce)
        }
        guard firstUse else {
            throw DPoPFailure(failure: OAuthFailure("invalid_dpop_proof", "the DPoP proof was already used (jti replay)"), nonce: nonce)
        }
        return proof.thumbprint
    }

    /// The proof rules, shared with the API middleware: the algorithms the provider publishes.
    static let dpopProofVerifier = DPoPProofVerifier(acceptedAlgorithms: ClientAssertionCheck.asymmetric)
}

extension DPoPFailure {
    /// The JSON error of a token endpoint, with `DPoP-Nonce` when known.
    var tokenEndpointResponse: ProviderResponse {
        var response = failure.response
        if let nonce { response.headers.append(("DPoP-Nonce", nonce)) }
        return response
    }
}
#endif
