import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), parsed but not verified.
package struct CompactJWS: Sendable, Equatable {
    /// The protected header.
    public let header: [String: JSONMemberValue]
    /// The payload, parsed as a JSON object (JWT claims).
    public let claims: [String: JSONMemberValue]
    /// The signature bytes.
    public let signature: [UInt8]
    /// `BASE64URL(header) '.' BASE64URL(payload)`: what was signed.
    public let signingInput: [UInt8]
    /// The raw payload bytes.
    public let payload: [UInt8]

    /// The `alg` header member.
    public var algorithm: String? { header["alg"]?.stringValue }
    /// The `kid` header member.
    public var keyID: String? { header["kid"]?.stringValue }

    /// Parses `token`; anything but three base64url segments with JSON-object
    /// header and payload is `id_token_invalid` / `malformed`.
    ///
    /// Header and payload are read with `JSONParser` (strict RFC 8259),
    /// which refuses duplicate member names in any object: two parsers could
    /// otherwise read different claims from one token.
    public init(_ token: String) throws {
        let parsed =
            token.utf8.withContiguousStorageIfAvailable { CompactJWS.parse($0) }
            // A string without contiguous UTF-8 is copied once and viewed (fuzzed: Fuzz/compact-jws.swift).
            ?? Array(token.utf8).withUnsafeBufferPointer { CompactJWS.parse($0) }
        self = try parsed.get()
    }

    private init(
        header: [String: JSONMemberValue], claims: [String: JSONMemberValue], signature: [UInt8], signingInput: [UInt8], payload: [UInt8]
    ) {
        self.header = header
        self.claims = claims
        self.signature = signature
        self.signingInput = signingInput
        self.payload = payload
    }

    /// Splits, decodes and parses the UTF-8 bytes of a compact JWS in one go
    /// over the token, without intermediate strings or `Data`.
    // Splits, decodes and parses the token's UTF-8 where it lies (fuzzed: Fuzz/compact-jws.swift).
    private static func parse(_ token: UnsafeBufferPointer<UInt8>) -> Result<CompactJWS, AuthFlowError> {
        guard let parts = segments(of: token) else {
            let segments = token.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
            return .failure(.idToken(.malformed, "a JWS has three segments, this has \(segments)"))
        }
        // The header is only needed while it is parsed: decode it into
        // temporary (stack) storage. Payload and signature are kept.
        let header = Base64URL.withDecoded(parts.header) { JSONParser.object($0) }
        guard let header, let payloadBytes = Base64URL.decode(parts.payload), let signatureBytes = Base64URL.decode(parts.signature) else {
            return .failure(.idToken(.malformed, "a JWS segment is not base64url"))
        }
        guard let header else {
            return .failure(.idToken(.malformed, "the JWS header is not a JSON object"))
        }
        // The payload array viewed for JSONParser, no copy (fuzzed: Fuzz/compact-jws.swift).
        guard let claims = payloadBytes.withUnsafeBufferPointer({ JSONParser.object($0) }) else {
            return .failure(.idToken(.malformed, "the JWS payload is not a JSON object"))
        }
        return .success(
            CompactJWS(
                header: header, claims: claims, signature: signatureBytes,
                signingInput: Array(token[..<parts.signingInputCount]), payload: payloadBytes))
    }

    /// The three base64url segments of a compact JWS's UTF-8 and the length of
    /// what was signed (up to the second dot); nil unless there are exactly two dots.
    ///
    /// `checkingSignature: false` skips the search for a third dot, for a caller
    /// that base64url-decodes the signature, which refuses a dot anyway.
    // The three segments as views of the token, no copies (fuzzed: Fuzz/compact-jws.swift, Fuzz/idtoken-scan.swift).
    static func segments(of token: UnsafeBufferPointer<UInt8>, checkingSignature: Bool = true)
        -> (
            header: UnsafeBufferPointer<UInt8>, payload: UnsafeBufferPointer<UInt8>, signature: UnsafeBufferPointer<UInt8>,
            signingInputCount: Int
        )?
    {
        guard let first = firstDot(in: token, from: 0), let second = firstDot(in: token, from: first + 1),
            !checkingSignature || firstDot(in: token, from: second + 1) == nil
        else { return nil }
        return (
            // Views between the dots found above.
            UnsafeBufferPointer(rebasing: token[..<first]), UnsafeBufferPointer(rebasing: token[(first + 1)..<second]),
            UnsafeBufferPointer(rebasing: token[(second + 1)...]), second
        )
    }

    /// Whether `token` has exactly two dots, as a JWS in compact serialization
    /// has: what an API checks to tell a JWT access token from an opaque one.
    package static func hasTwoDots(_ token: some StringProtocol) -> Bool {
        token.utf8.withContiguousStorageIfAvailable(hasTwoDots)
            // A string without contiguous UTF-8 is copied once and viewed (fuzzed: Fuzz/compact-jws.swift).
            ?? Array(token.utf8).withUnsafeBufferPointer(hasTwoDots)
    }

    // The token's UTF-8 as a view, searched with firstDot (fuzzed: Fuzz/compact-jws.swift).
    private static func hasTwoDots(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = firstDot(in: token, from: 0), let second = firstDot(in: token, from: first + 1) else { return false }
        return firstDot(in: token, from: second + 1) == nil
    }

    /// The index of the first `.` at or after `start` (`memchr`, vectorized by the C library).
    // memchr over the view, after checking start < count (fuzzed: Fuzz/compact-jws.swift).
    private static func firstDot(in token: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < token.count, let base = token.baseAddress,
            let found = memchr(base + start, Int32(UInt8(ascii: ".")), token.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
