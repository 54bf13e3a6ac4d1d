import Foundation

/// An ID token read for verification without building its header and
/// payload: the header's `alg`, `kid` and `crit`, and where the payload's
/// typed claims are (``PayloadClaims``), every other member only checked.
///
/// It exists for speed and never decides anything on its own: the
/// initializer returns nil for any token it does not read exactly as
/// ``CompactJWS`` and ``IDTokenClaims/init(claims:)`` would (malformed
/// segments, JSON the scan leaves to the full parser), and ``IDTokenVerifier``
/// then takes the full path, which reports the exact error.
struct ScannedIDToken: SignedJWS {
    /// The compact serialization; what was signed is its UTF-8 up to the second dot.
    private let token: String
    let knownAlgorithm: JWSAlgorithm?
    let keyID: String?
    let hasCriticalHeader: Bool
    let signatureBytes: Data
    let claims: PayloadClaims
    private let signingInputCount: Int

    init?(_ token: String) {
        // A native string's UTF-8 is contiguous; any other is left to the full path.
        guard let scanned = token.utf8.withContiguousStorageIfAvailable(ScannedIDToken.scan) ?? nil else { return nil }
        self.token = token
        knownAlgorithm = scanned.header.algorithm
        keyID = scanned.header.keyID
        hasCriticalHeader = scanned.header.critical
        signatureBytes = scanned.signature
        claims = scanned.claims
        signingInputCount = scanned.signingInputCount
    }

    var algorithm: String? { knownAlgorithm?.name }

    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        // Contiguous: the initializer read it so.
        let signed = try token.utf8.withContiguousStorageIfAvailable {
            try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[..<signingInputCount]))
        }
        if let signed { return signed }
        return try Array(token.utf8).withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<signingInputCount])) }
    }

    /// The header members the verifier reads. A token whose `alg` is missing,
    /// not a plain string or not an algorithm AuthFlow verifies is left to the
    /// full path, which names the exact reason.
    private struct Header {
        var algorithm: JWSAlgorithm?
        var keyID: String?
        var critical = false
    }

    private typealias Scanned = (header: Header, signature: Data, claims: PayloadClaims, signingInputCount: Int)

    /// The header is decoded into temporary (stack) storage, since only what
    /// its scan reads is kept; the payload into an array the claims keep.
    private static func scan(_ token: UnsafeBufferPointer<UInt8>) -> Scanned? {
        guard let parts = CompactJWS.segments(of: token),
              let header = Base64URL.withDecoded(parts.header, scanHeader) ?? nil,
              let payload = Base64URL.decode(parts.payload),
              let claims = PayloadClaims.scan(payload),
              let signature = Base64URL.withDecoded(parts.signature, { Data(buffer: $0) }) else { return nil }
        return (header, signature, claims, parts.signingInputCount)
    }

    private static func scanHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Header? {
        var header = Header()
        let scanned = JSONParser.scanObject(bytes) { name, parser throws(JSONParser.Failure) in
            if name.equals("alg") {
                header.algorithm = try parser.plainString().flatMap { JWSAlgorithm(utf8: $0) }
            } else if name.equals("kid") {
                header.keyID = try parser.plainKeyID()
            } else {
                if name.equals("crit") { header.critical = true }
                try parser.skipValue()
            }
        }
        return scanned && header.algorithm != nil ? header : nil
    }
}

private extension JSONParser {
    /// A `kid` value: made straight from the bytes when plain, else parsed.
    mutating func plainKeyID() throws(Failure) -> String? {
        let start = index
        if let plain = try plainString() { return String(decoding: plain, as: UTF8.self) }
        index = start
        return try parseValue().stringValue
    }
}
