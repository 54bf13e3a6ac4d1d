import Foundation

/// An ID token read for verification without building its header and
/// payload: the header's `alg`, `kid` and `crit`, and where the payload's
/// typed claims are (``PayloadClaims``), every other member only checked.
///
/// It exists for speed and never decides anything on its own: ``scan(_:_:)``
/// returns nil for any token it does not read exactly as `CompactJWS` and
/// ``IDTokenClaims/init(claims:)`` would (malformed segments, JSON the scan
/// leaves to the full parser), and ``IDTokenVerifier`` then takes the full
/// path, which reports the exact error.
///
/// A scanned token lives only for the call of ``scan(_:_:)`` that made it:
/// what was signed is read in place in the token's UTF-8, and the signature
/// is decoded into temporary (stack) storage, so that the signature check
/// copies it once, into swift-crypto's own value. Only ``claims`` may be kept.
struct ScannedIDToken: SignedJWS {
    let knownAlgorithm: JWSAlgorithm?
    let keyID: String?
    let hasCriticalHeader: Bool
    let claims: PayloadClaims
    /// What was signed: the token's UTF-8 up to the second dot.
    // Views of the token's UTF-8 and of stack storage, used only inside scan(_:_:) (fuzzed: Fuzz/idtoken-scan.swift).
    private let signingInput: UnsafeRawBufferPointer
    /// The decoded signature, in storage that ends with the ``scan(_:_:)`` call.
    // Stack storage of scan(_:_:), never kept (fuzzed: Fuzz/idtoken-scan.swift).
    private let signature: UnsafeRawBufferPointer

    var algorithm: String? { knownAlgorithm?.name }

    // The views go to the signature check, which copies them once into swift-crypto (fuzzed: Fuzz/compact-jws.swift).
    func withSignedParts<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(signingInput, signature)
    }

    /// Scans `token` and calls `body` with it; false, without calling `body`,
    /// when the full path must read the token (a token whose UTF-8 is not
    /// contiguous, as a bridged string's may not be, included).
    static func scan(_ token: String, _ body: (ScannedIDToken) throws -> Void) rethrows -> Bool {
        try token.utf8.withContiguousStorageIfAvailable { utf8 in
            // The header is decoded into temporary storage too, since only
            // what its scan reads is kept; the payload into the claims' own storage.
            guard let parts = CompactJWS.segments(of: utf8, checkingSignature: false),
                let header = Base64URL.withDecoded(parts.header, scanHeader) ?? nil,
                let claims = PayloadClaims.scan(base64URL: parts.payload),
                let signatureCount = Base64URL.decodedLength(parts.signature.count)
            else { return false }
            // The signature decoded on the stack, no heap allocation per token (fuzzed: Fuzz/idtoken-scan.swift, Fuzz/compact-jws.swift).
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(signatureCount, 1)) { buffer in
                guard Base64URL.decode(parts.signature, into: buffer) else { return false }
                // Exactly the decoded bytes; then what was signed, the token's UTF-8 up to the second dot.
                let signature = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[..<signatureCount]))
                let signingInput = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[..<parts.signingInputCount]))
                try body(
                    ScannedIDToken(
                        knownAlgorithm: header.algorithm, keyID: header.keyID, hasCriticalHeader: header.critical,
                        claims: claims, signingInput: signingInput, signature: signature))
                return true
            }
        } ?? false
    }

    /// The header members the verifier reads. A token whose `alg` is missing,
    /// not a plain string or not an algorithm AuthFlow verifies is left to the
    /// full path, which names the exact reason.
    private struct Header {
        var algorithm: JWSAlgorithm?
        var keyID: String?
        var critical = false
    }

    // The header decoded on the stack by Base64URL.withDecoded (fuzzed: Fuzz/idtoken-scan.swift).
    private static func scanHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Header? {
        var header = Header()
        let scanned = JSONParser.scanObject(bytes) { name, parser throws(JSONParser.Failure) in
            if name.equals("alg") {
                header.algorithm = try parser.plainString().flatMap { JWSAlgorithm(utf8: $0) }
            } else if name.equals("kid") {
                header.keyID = try parser.parseValue().stringValue
            } else {
                if name.equals("crit") { header.critical = true }
                try parser.skipValue()
            }
        }
        return scanned && header.algorithm != nil ? header : nil
    }
}
