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
    let algorithm: String?
    let keyID: String?
    let hasCriticalHeader: Bool
    let signatureBytes: Data
    let claims: PayloadClaims
    private let signingInputCount: Int

    init?(_ token: String) {
        var text = token
        guard let scanned = text.withUTF8({ ScannedIDToken.scan($0) }) else { return nil }
        self.token = token
        algorithm = scanned.header.algorithm
        keyID = scanned.header.keyID
        hasCriticalHeader = scanned.header.critical
        signatureBytes = scanned.signature
        claims = scanned.claims
        signingInputCount = scanned.signingInputCount
    }

    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var text = token
        return try text.withUTF8 { try body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer($0)[..<signingInputCount])) }
    }

    /// The header members the verifier reads.
    private struct Header {
        var algorithm: String?
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
              let signatureCount = Base64URL.decodedLength(parts.signature.count) else { return nil }
        var signature = Data(count: signatureCount)
        let valid = signature.withUnsafeMutableBytes { raw in
            Base64URL.decode(parts.signature, into: raw.bindMemory(to: UInt8.self))
        }
        return valid ? (header, signature, claims, parts.signingInputCount) : nil
    }

    private static func scanHeader(_ bytes: UnsafeBufferPointer<UInt8>) -> Header? {
        var header = Header()
        let scanned = JSONParser.scanObject(bytes) { name, parser throws(JSONParser.Failure) in
            if name.equals("alg") {
                header.algorithm = try parser.parseValue().stringValue
            } else if name.equals("kid") {
                header.keyID = try parser.parseValue().stringValue
            } else {
                if name.equals("crit") { header.critical = true }
                try parser.skipValue()
            }
        }
        return scanned ? header : nil
    }
}
