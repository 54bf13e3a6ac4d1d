#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A JWS in compact serialization (RFC 7515 §7.1), read but not verified:
/// the one shape every signed token takes before its signature is checked
/// (ID tokens, JWT access tokens, logout and port tokens, DPoP proofs, client
/// assertions).
///
/// The header and payload are decoded into one array with the signature and
/// what was signed, and read in place by ``JSONObjectReader``: a claim becomes
/// a value only when it is asked for.
package struct CompactJWS: Sendable, Equatable {
    /// What was signed, then the decoded header, payload and signature.
    private let bytes: [UInt8]
    private let signingInputCount: Int
    private let payloadRange: Range<Int>
    private let signatureRange: Range<Int>
    /// The protected header, read in place.
    let headerMembers: JSONObjectReader
    /// The payload (JWT claims), read in place.
    let claimMembers: JSONObjectReader
    /// The `alg` header member, when it names an algorithm AuthFlow can verify.
    let knownAlgorithm: JWSAlgorithm?

    /// The protected header, parsed at each call.
    public var header: [String: JSONMemberValue] { headerMembers.all }
    /// The payload, parsed as a JSON object (JWT claims) at each call.
    public var claims: [String: JSONMemberValue] { claimMembers.all }
    /// The signature bytes.
    public var signature: [UInt8] { Array(bytes[signatureRange]) }
    /// `BASE64URL(header) '.' BASE64URL(payload)`: what was signed.
    public var signingInput: [UInt8] { Array(bytes[..<signingInputCount]) }
    /// The raw payload bytes.
    public var payload: [UInt8] { Array(bytes[payloadRange]) }

    /// The `alg` header member.
    public var algorithm: String? { headerMembers.string("alg") }
    /// The `kid` header member.
    public var keyID: String? { headerMembers.string("kid") }
    /// The `typ` header member, when it is a string.
    var type: String? { headerMembers.string("typ") }
    /// Whether the header has a `crit` member.
    var hasCriticalHeader: Bool { headerMembers.contains("crit") }

    /// Reads `token`; anything but three base64url segments with JSON-object
    /// header and payload is `id_token_invalid` / `malformed`.
    ///
    /// Header and payload are read with ``JSONObjectReader``, which accepts
    /// exactly what `JSONParser` accepts and refuses duplicate member names in
    /// any object: two parsers could otherwise read different claims from one token.
    public init(_ token: String) throws {
        try self.init(reading: token)
    }

    /// Reads `token`, a string or a part of one (an `Authorization` field's value), where it lies.
    init(reading token: some StringProtocol) throws {
        let parsed =
            token.utf8.withContiguousStorageIfAvailable { CompactJWS.read($0) }
            // A string without contiguous UTF-8 is copied once and viewed (fuzzed: Fuzz/token-reader.swift).
            ?? Array(token.utf8).withUnsafeBufferPointer { CompactJWS.read($0) }
        self = try parsed.get()
    }

    private init(
        bytes: [UInt8], signingInputCount: Int, payload: Range<Int>, signature: Range<Int>, header: JSONObjectReader,
        claims: JSONObjectReader
    ) {
        self.bytes = bytes
        self.signingInputCount = signingInputCount
        payloadRange = payload
        signatureRange = signature
        headerMembers = header
        claimMembers = claims
        knownAlgorithm = header.string("alg").flatMap(JWSAlgorithm.init(name:))
    }

    /// Splits and decodes the UTF-8 of a compact JWS into one array, and reads its header and payload.
    // The token's UTF-8 where it lies, copied and decoded into the token's one array (fuzzed: Fuzz/token-reader.swift).
    private static func read(_ token: UnsafeBufferPointer<UInt8>) -> Result<CompactJWS, AuthFlowError> {
        guard let first = firstDot(in: token, from: 0), let second = firstDot(in: token, from: first + 1),
            firstDot(in: token, from: second + 1) == nil
        else {
            let segments = token.reduce(1) { $1 == UInt8(ascii: ".") ? $0 + 1 : $0 }
            return .failure(.idToken(.malformed, "a JWS has three segments, this has \(segments)"))
        }
        // Where each decoded segment goes in the array, after what was signed.
        guard let headerCount = Base64URL.decodedLength(first), let payloadCount = Base64URL.decodedLength(second - first - 1),
            let signatureCount = Base64URL.decodedLength(token.count - second - 1)
        else { return .failure(.idToken(.malformed, "a JWS segment is not base64url")) }
        let header = second..<(second + headerCount)
        let payload = header.upperBound..<(header.upperBound + payloadCount)
        let signature = payload.upperBound..<(payload.upperBound + signatureCount)
        var decoded = false
        // Filled by the copy and the three decodes, each into its own range; nothing counts as initialized unless all succeeded.
        let bytes = [UInt8](unsafeUninitializedCapacity: signature.upperBound) { buffer, initialized in
            _ = buffer.initialize(from: token[..<second])
            func decode(_ segment: Range<Int>, into range: Range<Int>) -> Bool {
                Base64URL.decode(UnsafeBufferPointer(rebasing: token[segment]), into: UnsafeMutableBufferPointer(rebasing: buffer[range]))
            }
            decoded =
                decode(0..<first, into: header) && decode((first + 1)..<second, into: payload)
                && decode((second + 1)..<token.count, into: signature)
            initialized = decoded ? signature.upperBound : 0
        }
        guard decoded else { return .failure(.idToken(.malformed, "a JWS segment is not base64url")) }
        guard let headerMembers = try? JSONObjectReader(bytes, in: header) else {
            return .failure(.idToken(.malformed, "the JWS header is not a JSON object"))
        }
        guard let claims = try? JSONObjectReader(bytes, in: payload) else {
            return .failure(.idToken(.malformed, "the JWS payload is not a JSON object"))
        }
        return .success(
            CompactJWS(
                bytes: bytes, signingInputCount: second, payload: payload, signature: signature, header: headerMembers, claims: claims))
    }

    /// Whether `token` has exactly two dots, as a JWS in compact serialization
    /// has: what an API checks to tell a JWT access token from an opaque one.
    ///
    /// A `Substring` rather than any `StringProtocol`: called from another
    /// module, a generic one would run unspecialized, through witness tables
    /// for every byte (half of a JWT access token's check through the
    /// middleware, measured in `Benchmarks/AccessTokenLoop`).
    package static func hasTwoDots(_ token: Substring) -> Bool {
        // memchr over the bytes where they lie, as the decoding finds the dots.
        let found = token.utf8.withContiguousStorageIfAvailable { bytes in
            guard let first = firstDot(in: bytes, from: 0), let second = firstDot(in: bytes, from: first + 1) else { return false }
            return firstDot(in: bytes, from: second + 1) == nil
        }
        if let found { return found }
        var dots = 0
        for byte in token.utf8 where byte == UInt8(ascii: ".") {
            dots += 1
            if dots > 2 { return false }
        }
        return dots == 2
    }

    /// The index of the first `.` at or after `start` (`memchr`, vectorized by the C library).
    // memchr over the view, after checking start < count (fuzzed: Fuzz/token-reader.swift).
    private static func firstDot(in token: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < token.count, let base = token.baseAddress,
            let found = memchr(base + start, Int32(UInt8(ascii: ".")), token.count - start)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// Calls `body` with what was signed, `BASE64URL(header) '.' BASE64URL(payload)`,
    /// and the signature bytes; neither may be kept after the call.
    // Views of the token's own array for the signature check, which copies them into swift-crypto (fuzzed: Fuzz/token-reader.swift).
    func withSignedParts<R>(_ body: (_ signingInput: UnsafeRawBufferPointer, _ signature: UnsafeRawBufferPointer) throws -> R) rethrows -> R
    {
        try bytes.withUnsafeBytes { all in
            try body(UnsafeRawBufferPointer(rebasing: all[..<signingInputCount]), UnsafeRawBufferPointer(rebasing: all[signatureRange]))
        }
    }

    /// Equal when what was signed and the signature are.
    package static func == (lhs: CompactJWS, rhs: CompactJWS) -> Bool {
        lhs.bytes == rhs.bytes
    }
}
