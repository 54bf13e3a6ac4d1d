import Foundation

/// What a signature check needs from a compact JWS, however it was read.
protocol SignedJWS: Sendable {
    /// The `alg` header member, when it is a string.
    var algorithm: String? { get }
    /// The `alg` header member, when it names an algorithm AuthFlow can verify.
    var knownAlgorithm: JWSAlgorithm? { get }
    /// The `kid` header member, when it is a string.
    var keyID: String? { get }
    /// Whether the header has a `crit` member.
    var hasCriticalHeader: Bool { get }
    /// The signature bytes.
    var signatureBytes: Data { get }
    /// Calls `body` with `BASE64URL(header) '.' BASE64URL(payload)`: what was signed.
    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
}

extension CompactJWS: SignedJWS {
    var hasCriticalHeader: Bool { header["crit"] != nil }
    var knownAlgorithm: JWSAlgorithm? { algorithm.flatMap(JWSAlgorithm.init(name:)) }
    var signatureBytes: Data { Data(signature) }

    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try signingInput.withUnsafeBytes(body)
    }
}
