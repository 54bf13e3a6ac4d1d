import Crypto

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

extension DPoPProofVerifier.Proof {
    /// How a ``ReplayCache`` records the proof (RFC 9449 §11.1), for every
    /// server here (the API middleware, the embedded provider): by its key,
    /// whose budget a cache may bound, and the SHA-256 of its `jti` (88
    /// bytes, however long the `jti`).
    package var replayIdentifier: String {
        thumbprint + " " + Base64URL.encode(SHA256.hash(data: Array(proofID.utf8)))
    }

    /// Until when the proof must be remembered: until its `iat` can no longer
    /// pass a window of `maximumSkew` seconds.
    package func replayExpiry(maximumSkew: TimeInterval) -> Date {
        issuedAt.addingTimeInterval(maximumSkew + 1)
    }
}
