import Foundation

/// The claims ``IDTokenClaims`` has properties for, kept as places in the
/// decoded payload instead of strings: what the verifier's scan produces.
///
/// The scan checks every member with the parser's rules and records where
/// each typed claim's value is (or that it has another type); strings are
/// made only when a property is read, and the OIDC rules compare plain ASCII
/// values byte for byte (``equals(_:_:)``). ``values`` turns it into the same
/// ``IDTokenClaimValues`` the full parser's dictionary gives, which is how the
/// tests hold both paths to one reading.
///
/// One reference, so that the verifier's frames pass a pointer around instead
/// of copying some 300 bytes of places at every step, to a `ManagedBuffer`,
/// so that the places and the decoded payload are one allocation. The buffer
/// is never written after ``scan(base64URL:)`` returns, which is what makes
/// sharing it across tasks safe.
struct PayloadClaims: Sendable {
    /// Where a string claim is: the range of its JSON string (quotes
    /// included), and whether its content is plain (printable ASCII without
    /// escapes: its bytes are then the string's UTF-8).
    enum Text: Sendable, Equatable {
        case absent
        case string(Range<Int>, plain: Bool)
        case wrongType
    }

    /// Where `aud` is: one string, or the strings of an array that holds only
    /// strings and is not empty (the scan builds that array to check it, so it keeps it).
    enum Audience: Sendable, Equatable {
        case absent
        case string(Range<Int>, plain: Bool)
        case array([String])
        case wrongType
    }

    typealias Number = IDTokenClaimValues.Reading<Double>

    /// What the scan found, filled in as it goes.
    struct Places {
        var iss = Text.absent, sub = Text.absent, nonce = Text.absent, azp = Text.absent, atHash = Text.absent
        var acr = Text.absent, name = Text.absent, email = Text.absent, preferredUsername = Text.absent
        var exp = Number.absent, iat = Number.absent, authTime = Number.absent
        var aud = Audience.absent
        var amr: Range<Int>?
    }

    /// The payload's length and the places; the payload's bytes follow it.
    struct Header {
        var count: Int
        var places = Places()
    }

    /// The places and the payload in one allocation.
    final class Storage: ManagedBuffer<Header, UInt8> {}

    /// Written only while ``scan(count:filling:)`` builds it, read-only after.
    // A ManagedBuffer is not Sendable; this one is written only in scan(count:filling:), then read-only (fuzzed: Fuzz/idtoken-scan.swift).
    nonisolated(unsafe) private let storage: Storage

    private init(storage: Storage) {
        self.storage = storage
    }

    private func place<T>(_ read: (borrowing Places) -> T) -> T {
        // The claims' places live in the buffer's header, read through its pointer (fuzzed: Fuzz/idtoken-scan.swift).
        storage.withUnsafeMutablePointerToHeader { read($0.pointee.places) }
    }

    var iss: Text { place { $0.iss } }
    var sub: Text { place { $0.sub } }
    var nonce: Text { place { $0.nonce } }
    var azp: Text { place { $0.azp } }
    var atHash: Text { place { $0.atHash } }
    var acr: Text { place { $0.acr } }
    var name: Text { place { $0.name } }
    var email: Text { place { $0.email } }
    var preferredUsername: Text { place { $0.preferredUsername } }
    var exp: Number { place { $0.exp } }
    var iat: Number { place { $0.iat } }
    var authTime: Number { place { $0.authTime } }
    var aud: Audience { place { $0.aud } }
    /// The range of `amr` when it is an array.
    var amr: Range<Int>? { place { $0.amr } }

    /// Calls `body` with the decoded payload, a JSON object.
    // The payload lives in the buffer's elements (one allocation per token), lent as a view (fuzzed: Fuzz/idtoken-scan.swift).
    func withPayload<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withUnsafeMutablePointers { header, bytes in try body(UnsafeBufferPointer(start: bytes, count: header.pointee.count)) }
    }

    /// Decodes a base64url payload segment into a new buffer and scans it (see
    /// ``JSONParser/scanObject(_:_:)``); nil when the segment is not base64url
    /// or the full parser must read the payload instead.
    // The segment as a view, decoded straight into the claims' storage (fuzzed: Fuzz/idtoken-scan.swift).
    static func scan(base64URL segment: UnsafeBufferPointer<UInt8>) -> PayloadClaims? {
        guard let count = Base64URL.decodedLength(segment.count) else { return nil }
        return scan(count: count) { Base64URL.decode(segment, into: $0) }
    }

    /// Scans a decoded payload (the tests' entry).
    static func scan(_ payload: [UInt8]) -> PayloadClaims? {
        scan(count: payload.count) { buffer in
            _ = buffer.initialize(from: payload)
            return true
        }
    }

    // Payload and places in one ManagedBuffer, filled in place (fuzzed: Fuzz/idtoken-scan.swift).
    private static func scan(count: Int, filling fill: (UnsafeMutableBufferPointer<UInt8>) -> Bool) -> PayloadClaims? {
        // Storage.create returns its ManagedBuffer superclass; the object is the Storage it created.
        let storage = unsafeDowncast(Storage.create(minimumCapacity: count) { _ in Header(count: count) }, to: Storage.self)
        // Exactly `count` elements, as created above: filled, then scanned in place.
        let scanned = storage.withUnsafeMutablePointers { header, bytes in
            let buffer = UnsafeMutableBufferPointer(start: bytes, count: count)
            guard fill(buffer) else { return false }
            return JSONParser.scanObject(UnsafeBufferPointer(buffer)) { name, parser throws(JSONParser.Failure) in
                guard let claim = IDTokenClaimValues.Claim(name) else { return try parser.skipValue() }
                try header.pointee.places.read(claim, with: &parser)
            }
        }
        return scanned ? PayloadClaims(storage: storage) : nil
    }

    // MARK: Reading values

    /// The JSON value at `range` of the payload (which the scan checked).
    func value(at range: Range<Int>) -> JSONMemberValue {
        withPayload { bytes in
            // A range of the payload that the scan checked (fuzzed: Fuzz/idtoken-scan.swift).
            (try? JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[range]))) ?? .null
        }
    }

    /// The string whose JSON text is at `range`.
    func string(at range: Range<Int>, plain: Bool) -> String {
        if plain {
            // A plain string's content is its UTF-8, a range of the payload the scan checked (fuzzed: Fuzz/idtoken-scan.swift).
            return withPayload { String(decoding: UnsafeBufferPointer(rebasing: $0[Self.content(range)]), as: UTF8.self) }
        }
        return value(at: range).stringValue ?? ""
    }

    /// The string of `text`, nil when absent or of another type.
    func string(_ text: Text) -> String? {
        if case .string(let range, let plain) = text { return string(at: range, plain: plain) }
        return nil
    }

    /// The content of the JSON string at `range`: without its quotes.
    private static func content(_ range: Range<Int>) -> Range<Int> {
        (range.lowerBound + 1)..<(range.upperBound - 1)
    }

    /// Whether the string of `text` equals `expected` as Swift compares
    /// strings: byte for byte when both are plain ASCII (then the same thing),
    /// otherwise by making the string.
    func equals(_ text: Text, _ expected: String) -> Bool {
        guard case .string(let range, let plain) = text else { return false }
        return equals(range, plain: plain, expected)
    }

    func equals(_ range: Range<Int>, plain: Bool, _ expected: String) -> Bool {
        // A plain string's content, a range of the payload the scan checked (fuzzed: Fuzz/idtoken-scan.swift).
        let answer = plain ? withPayload { plainContent(UnsafeBufferPointer(rebasing: $0[Self.content(range)]), equals: expected) } : nil
        return answer ?? (string(at: range, plain: plain) == expected)
    }

    /// Whether the string of `text` equals `expected` byte for byte, compared
    /// in constant time (as ``constantTimeEquals(_:_:)-(String,String)`` compares strings); nil when absent.
    func constantTimeEquals(_ text: Text, _ expected: String) -> Bool? {
        guard case .string(let range, let plain) = text else { return nil }
        guard plain else { return AuthFlow.constantTimeEquals(string(at: range, plain: false), expected) }
        return withPayload { bytes in AuthFlow.constantTimeEquals(bytes[Self.content(range)], expected.utf8) }
    }

    /// The audience as a list (the scan checked its shape).
    var audience: [String] {
        switch aud {
        case .string(let range, let plain): [string(at: range, plain: plain)]
        case .array(let audiences): audiences
        case .absent, .wrongType: []
        }
    }

    /// Whether `clientID` is one of the audiences.
    func audienceContains(_ clientID: String) -> Bool {
        switch aud {
        case .string(let range, let plain): equals(range, plain: plain, clientID)
        case .array(let audiences): audiences.contains(clientID)
        case .absent, .wrongType: false
        }
    }

    /// The number of audiences.
    var audienceCount: Int {
        switch aud {
        case .string: 1
        case .array(let audiences): audiences.count
        case .absent, .wrongType: 0
        }
    }

    /// The same reading as the full parser's dictionary gives (``IDTokenClaimValues/init(_:)``).
    var values: IDTokenClaimValues {
        var values = IDTokenClaimValues()
        func reading(_ text: Text) -> IDTokenClaimValues.Reading<String> {
            switch text {
            case .absent: .absent
            case .string(let range, let plain): .value(string(at: range, plain: plain))
            case .wrongType: .wrongType
            }
        }
        values.iss = reading(iss)
        values.sub = reading(sub)
        values.nonce = reading(nonce)
        values.azp = reading(azp)
        values.atHash = reading(atHash)
        values.acr = reading(acr)
        values.exp = exp
        values.iat = iat
        values.authTime = authTime
        switch aud {
        case .absent: values.aud = .absent
        case .wrongType: values.aud = .wrongType
        case .string, .array: values.aud = .value(audience)
        }
        values.amr = amr.map { value(at: $0).arrayValue?.compactMap(\.stringValue) ?? [] }
        values.name = string(name)
        values.email = string(email)
        values.preferredUsername = string(preferredUsername)
        return values
    }
}

extension PayloadClaims.Places {
    /// Reads the value at the parser's position as `claim`.
    mutating func read(_ claim: IDTokenClaimValues.Claim, with parser: inout JSONParser) throws(JSONParser.Failure) {
        let start = parser.index
        let first = try parser.peek()
        switch claim {
        case .exp, .iat, .authTime:
            let reading: PayloadClaims.Number
            if first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10 {
                reading = .value(try parser.parseNumber()) // always finite
            } else {
                try parser.skipValue()
                reading = .wrongType
            }
            switch claim {
            case .exp: exp = reading
            case .iat: iat = reading
            default: authTime = reading
            }
        case .aud:
            if first == UInt8(ascii: "\"") {
                let plain = try parser.skipString()
                aud = .string(start..<parser.index, plain: plain)
            } else if first == UInt8(ascii: "[") {
                aud = IDTokenClaimValues.audience(try parser.parseValue()).value.map(PayloadClaims.Audience.array) ?? .wrongType
            } else {
                try parser.skipValue()
                aud = .wrongType
            }
        case .amr:
            try parser.skipValue()
            amr = first == UInt8(ascii: "[") ? start..<parser.index : nil
        default:
            let text: PayloadClaims.Text
            if first == UInt8(ascii: "\"") {
                let plain = try parser.skipString()
                text = .string(start..<parser.index, plain: plain)
            } else {
                try parser.skipValue()
                text = .wrongType
            }
            switch claim {
            case .iss: iss = text
            case .sub: sub = text
            case .nonce: nonce = text
            case .azp: azp = text
            case .atHash: atHash = text
            case .acr: acr = text
            case .name: name = text
            case .email: email = text
            default: preferredUsername = text
            }
        }
    }
}
