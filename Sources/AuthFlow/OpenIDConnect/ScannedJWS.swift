import Foundation

/// A compact JWS read for verification without building its header and
/// payload: the header's `alg`, `kid`, `typ` and `crit`, and the payload as
/// `Claims` reads it (``PayloadClaims`` for an ID token, ``ScannedJWTClaims``
/// for any other JWT), every other member only checked.
///
/// It exists for speed and never decides anything on its own: ``scan(_:claims:_:)``
/// returns false for any token it does not read exactly as `CompactJWS` would
/// (malformed segments, JSON the scan leaves to the full parser), and the
/// verifier then takes the full path, which reports the exact error.
///
/// A scanned token lives only for the call of ``scan(_:claims:_:)`` that made
/// it: what was signed is read in place in the token's UTF-8, and the
/// signature is decoded into temporary (stack) storage, so that the signature
/// check copies it once, into swift-crypto's own value. Only ``claims`` may be kept.
struct ScannedJWS<Claims>: SignedJWS {
    let knownAlgorithm: JWSAlgorithm?
    let keyID: String?
    /// The `typ` header member, when it is a string.
    let type: String?
    let hasCriticalHeader: Bool
    let claims: Claims
    /// What was signed: the token's UTF-8 up to the second dot.
    // Views of the token's UTF-8 and of stack storage, used only inside scan(_:claims:_:) (fuzzed: Fuzz/idtoken-scan.swift, Fuzz/jwt-scan.swift).
    private let signingInput: UnsafeRawBufferPointer
    /// The decoded signature, in storage that ends with the ``scan(_:claims:_:)`` call.
    // Stack storage of scan(_:claims:_:), never kept (fuzzed: Fuzz/idtoken-scan.swift, Fuzz/jwt-scan.swift).
    private let signature: UnsafeRawBufferPointer

    var algorithm: String? { knownAlgorithm?.name }

    // The views go to the signature check, which copies them once into swift-crypto (fuzzed: Fuzz/compact-jws.swift).
    func withSignedParts<R>(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(signingInput, signature)
    }

    /// Scans `token` and calls `body` with it; false, without calling `body`,
    /// when the full path must read the token (a token whose UTF-8 is not
    /// contiguous, as a bridged string's may not be, included).
    /// - Parameter readClaims: reads the claims from the header and payload
    ///   segments (base64url, as views of the token); nil leaves the token to the full path.
    static func scan(
        _ token: some StringProtocol,
        claims readClaims: (_ header: UnsafeBufferPointer<UInt8>, _ payload: UnsafeBufferPointer<UInt8>) -> Claims?,
        _ body: (ScannedJWS) throws -> Void
    ) rethrows -> Bool {
        try token.utf8.withContiguousStorageIfAvailable { utf8 in
            // The header is decoded into temporary storage, since only what
            // its scan reads is kept; `readClaims` decodes the payload into the claims' own storage.
            guard let parts = CompactJWS.segments(of: utf8, checkingSignature: false),
                let header = Base64URL.withDecoded(parts.header, scanHeader) ?? nil,
                let claims = readClaims(parts.header, parts.payload),
                let signatureCount = Base64URL.decodedLength(parts.signature.count)
            else { return false }
            // The signature decoded on the stack, no heap allocation per token (fuzzed: Fuzz/idtoken-scan.swift, Fuzz/jwt-scan.swift).
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(signatureCount, 1)) { buffer in
                guard Base64URL.decode(parts.signature, into: buffer) else { return false }
                // Exactly the decoded bytes; then what was signed, the token's UTF-8 up to the second dot.
                let signature = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[..<signatureCount]))
                let signingInput = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[..<parts.signingInputCount]))
                try body(
                    ScannedJWS(
                        knownAlgorithm: header.algorithm, keyID: header.keyID, type: header.type, hasCriticalHeader: header.critical,
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
        var type: String?
        var critical = false
    }

    // The header decoded on the stack by Base64URL.withDecoded (fuzzed: Fuzz/idtoken-scan.swift, Fuzz/jwt-scan.swift).
    private static func scanHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Header? {
        var header = Header()
        let scanned = JSONParser.scanObject(bytes) { name, parser throws(JSONParser.Failure) in
            if name.equals("alg") {
                header.algorithm = try parser.plainString().flatMap { JWSAlgorithm(utf8: $0) }
            } else if name.equals("kid") {
                header.keyID = try parser.parseValue().stringValue
            } else if name.equals("typ") {
                header.type = try parser.parseValue().stringValue
            } else {
                if name.equals("crit") { header.critical = true }
                try parser.skipValue()
            }
        }
        return scanned && header.algorithm != nil ? header : nil
    }
}

/// An ID token read in place (``PayloadClaims``), for ``IDTokenVerifier``.
typealias ScannedIDToken = ScannedJWS<PayloadClaims>

extension ScannedJWS where Claims == PayloadClaims {
    /// Scans an ID token (see ``ScannedJWS/scan(_:claims:_:)``).
    static func scan(_ token: String, _ body: (ScannedIDToken) throws -> Void) rethrows -> Bool {
        try scan(token, claims: { _, payload in PayloadClaims.scan(base64URL: payload) }, body)
    }
}
