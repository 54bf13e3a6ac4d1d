import Foundation

extension CompactJWS {
    /// Whether the header has a `crit` member.
    var hasCriticalHeader: Bool { header["crit"] != nil }
    /// The `alg` header member, when it names an algorithm AuthFlow can verify.
    var knownAlgorithm: JWSAlgorithm? { algorithm.flatMap(JWSAlgorithm.init(name:)) }

    /// Calls `body` with what was signed, `BASE64URL(header) '.' BASE64URL(payload)`,
    /// and the signature bytes; neither may be kept after the call.
    func withSignedParts<R>(_ body: (_ signingInput: UnsafeRawBufferPointer, _ signature: UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try signingInput.withUnsafeBytes { input in try signature.withUnsafeBytes { try body(input, $0) } }
    }
}
