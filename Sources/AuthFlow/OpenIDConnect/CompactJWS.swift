import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), parsed but not verified.
public struct CompactJWS: Sendable, Equatable {
    /// The protected header.
    public let header: [String: JSONValue]
    /// The payload, parsed as a JSON object (JWT claims).
    public let claims: [String: JSONValue]
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
    /// Header and payload are read with ``JSONParser`` (strict RFC 8259),
    /// which refuses duplicate member names in any object: two parsers could
    /// otherwise read different claims from one token.
    public init(_ token: String) throws {
        let parsed = token.utf8.withContiguousStorageIfAvailable { CompactJWS.parse($0) }
            ?? Array(token.utf8).withUnsafeBufferPointer { CompactJWS.parse($0) }
        self = try parsed.get()
    }

    private init(header: [String: JSONValue], claims: [String: JSONValue], signature: [UInt8], signingInput: [UInt8], payload: [UInt8]) {
        self.header = header
        self.claims = claims
        self.signature = signature
        self.signingInput = signingInput
        self.payload = payload
    }

    /// Splits, decodes and parses the UTF-8 bytes of a compact JWS in one go
    /// over the token, without intermediate strings or `Data`.
    private static func parse(_ token: UnsafeBufferPointer<UInt8>) -> Result<CompactJWS, AuthFlowError> {
        guard let first = firstDot(in: token, from: 0), let second = firstDot(in: token, from: first + 1),
              firstDot(in: token, from: second + 1) == nil else {
            let segments = token.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
            return .failure(.idToken(.malformed, "a JWS has three segments, this has \(segments)"))
        }
        let headerText = UnsafeBufferPointer(rebasing: token[..<first])
        let payloadText = UnsafeBufferPointer(rebasing: token[(first + 1)..<second])
        let signatureText = UnsafeBufferPointer(rebasing: token[(second + 1)...])
        // The header is only needed while it is parsed: decode it into
        // temporary (stack) storage. Payload and signature are kept.
        let headerLength = decodedLength(headerText.count)
        let header = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(headerLength ?? 0, 1)) { buffer -> [String: JSONValue]?? in
            guard let headerLength, decodeBase64URL(headerText, into: buffer) else { return .none }
            return .some(JSONParser.object(UnsafeBufferPointer(rebasing: buffer[..<headerLength])))
        }
        guard let header, let payloadBytes = decodeBase64URL(payloadText), let signatureBytes = decodeBase64URL(signatureText) else {
            return .failure(.idToken(.malformed, "a JWS segment is not base64url"))
        }
        guard let header else {
            return .failure(.idToken(.malformed, "the JWS header is not a JSON object"))
        }
        guard let claims = payloadBytes.withUnsafeBufferPointer({ JSONParser.object($0) }) else {
            return .failure(.idToken(.malformed, "the JWS payload is not a JSON object"))
        }
        return .success(CompactJWS(header: header, claims: claims, signature: signatureBytes,
                                   signingInput: Array(token[..<second]), payload: payloadBytes))
    }

    /// The index of the first `.` at or after `start` (`memchr`, vectorized by the C library).
    static func firstDot(in token: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < token.count, let base = token.baseAddress,
              let found = memchr(base + start, Int32(UInt8(ascii: ".")), token.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// `0xFF` for bytes outside the base64url alphabet, the 6-bit value
    /// otherwise. Made once and never freed or written again, so reading it
    /// from any thread is safe; a pointer, so a decode does not retain an array.
    nonisolated(unsafe) private static let base64URLValues: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0xFF, count: 256)
        for (value, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        return UnsafePointer(table)
    }()

    /// The number of bytes `count` base64url characters decode to; nil for
    /// an impossible length.
    static func decodedLength(_ count: Int) -> Int? {
        let tail = count % 4
        guard tail != 1 else { return nil }
        return count / 4 * 3 + (tail == 0 ? 0 : tail - 1)
    }

    /// Decodes unpadded, canonical base64url (the same rules as `Base64URL.decode`)
    /// straight into an exactly sized array: four characters at a time, one allocation.
    /// Nil for a character outside the alphabet (padding included), an impossible
    /// length, or non-zero leftover bits.
    static func decodeBase64URL(_ input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let outputCount = decodedLength(input.count) else { return nil }
        var valid = false
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { out, initialized in
            valid = decodeBase64URL(input, into: out)
            initialized = valid ? outputCount : 0
        }
        return valid ? output : nil
    }

    /// Decodes unpadded, canonical base64url into `out`, which holds at least
    /// ``decodedLength(_:)`` bytes; false for invalid input (see above).
    static func decodeBase64URL(_ input: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let count = input.count
        let tail = count % 4
        guard tail != 1 else { return false }
        guard count > 0, let source = input.baseAddress, let target = out.baseAddress else { return true }
        let table = base64URLValues
        var inIndex = 0, outIndex = 0
        // Eight characters (six bytes) per round, then four (three bytes).
        while inIndex + 8 <= count {
            let a = table[Int(source[inIndex])], b = table[Int(source[inIndex + 1])]
            let c = table[Int(source[inIndex + 2])], d = table[Int(source[inIndex + 3])]
            let e = table[Int(source[inIndex + 4])], f = table[Int(source[inIndex + 5])]
            let g = table[Int(source[inIndex + 6])], h = table[Int(source[inIndex + 7])]
            guard (a | b | c | d | e | f | g | h) & 0x80 == 0 else { return false }
            let first = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            let second = UInt32(e) << 18 | UInt32(f) << 12 | UInt32(g) << 6 | UInt32(h)
            target[outIndex] = UInt8(truncatingIfNeeded: first >> 16)
            target[outIndex + 1] = UInt8(truncatingIfNeeded: first >> 8)
            target[outIndex + 2] = UInt8(truncatingIfNeeded: first)
            target[outIndex + 3] = UInt8(truncatingIfNeeded: second >> 16)
            target[outIndex + 4] = UInt8(truncatingIfNeeded: second >> 8)
            target[outIndex + 5] = UInt8(truncatingIfNeeded: second)
            inIndex += 8
            outIndex += 6
        }
        while inIndex + 4 <= count {
            let a = table[Int(source[inIndex])], b = table[Int(source[inIndex + 1])]
            let c = table[Int(source[inIndex + 2])], d = table[Int(source[inIndex + 3])]
            guard (a | b | c | d) & 0x80 == 0 else { return false }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            target[outIndex] = UInt8(truncatingIfNeeded: chunk >> 16)
            target[outIndex + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
            target[outIndex + 2] = UInt8(truncatingIfNeeded: chunk)
            inIndex += 4
            outIndex += 3
        }
        if tail >= 2 {
            let a = table[Int(source[inIndex])], b = table[Int(source[inIndex + 1])]
            let c = tail == 3 ? table[Int(source[inIndex + 2])] : 0
            // Leftover bits must be zero for a canonical encoding.
            guard (a | b | c) & 0x80 == 0, tail == 3 ? c & 0x03 == 0 : b & 0x0F == 0 else { return false }
            let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
            target[outIndex] = UInt8(truncatingIfNeeded: chunk >> 16)
            if tail == 3 { target[outIndex + 1] = UInt8(truncatingIfNeeded: chunk >> 8) }
        }
        return true
    }
}

/// Finds duplicate member names in any object of a JSON text. The check is
/// ``JSONParser``'s own (names compared after unescaping); this only reports
/// whether the parser refused the text for that reason.
enum DuplicateKeyScanner {
    /// True when `bytes` is refused because an object repeats a member name.
    static func hasDuplicateKeys(_ bytes: [UInt8]) -> Bool {
        do throws(JSONParser.Failure) {
            _ = try JSONParser.parse(bytes)
            return false
        } catch {
            if case .duplicateName = error.kind { return true }
            return false
        }
    }
}
