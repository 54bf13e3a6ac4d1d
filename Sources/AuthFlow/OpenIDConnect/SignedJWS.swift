import Foundation

/// What a signature check needs from a compact JWS, however it was read.
///
/// Not `Sendable`: a ``ScannedIDToken`` refers to storage that lives only
/// during the call that scanned it.
protocol SignedJWS {
    /// The `alg` header member, when it is a string.
    var algorithm: String? { get }
    /// The `alg` header member, when it names an algorithm AuthFlow can verify.
    var knownAlgorithm: JWSAlgorithm? { get }
    /// The `kid` header member, when it is a string.
    var keyID: String? { get }
    /// Whether the header has a `crit` member.
    var hasCriticalHeader: Bool { get }
    /// Calls `body` with what was signed, `BASE64URL(header) '.' BASE64URL(payload)`,
    /// and the signature bytes; neither may be kept after the call.
    // One signature check for both token paths, without copying either's bytes (fuzzed: Fuzz/compact-jws.swift).
    func withSignedParts<R>(_ body: (_ signingInput: UnsafeRawBufferPointer, _ signature: UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension CompactJWS: SignedJWS {
    var hasCriticalHeader: Bool { header["crit"] != nil }
    var knownAlgorithm: JWSAlgorithm? { algorithm.flatMap(JWSAlgorithm.init(name:)) }

    // The arrays viewed for that check, no copy (fuzzed: Fuzz/compact-jws.swift).
    func withSignedParts<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try signingInput.withUnsafeBytes { input in try signature.withUnsafeBytes { try body(input, $0) } }
    }
}
