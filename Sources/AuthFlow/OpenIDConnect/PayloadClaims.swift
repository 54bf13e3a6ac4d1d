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
/// A class, so that the verifier's async frames pass one reference around
/// instead of copying some 300 bytes of places at every step.
final class PayloadClaims: Sendable {
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
    fileprivate struct Places {
        var iss = Text.absent, sub = Text.absent, nonce = Text.absent, azp = Text.absent, atHash = Text.absent
        var acr = Text.absent, name = Text.absent, email = Text.absent, preferredUsername = Text.absent
        var exp = Number.absent, iat = Number.absent, authTime = Number.absent
        var aud = Audience.absent
        var amr: Range<Int>?
    }

    /// The decoded payload, a JSON object.
    let payload: [UInt8]
    let iss: Text, sub: Text, nonce: Text, azp: Text, atHash: Text, acr: Text, name: Text, email: Text, preferredUsername: Text
    let exp: Number, iat: Number, authTime: Number
    let aud: Audience
    /// The range of `amr` when it is an array.
    let amr: Range<Int>?

    private init(payload: [UInt8], places: Places) {
        self.payload = payload
        iss = places.iss
        sub = places.sub
        nonce = places.nonce
        azp = places.azp
        atHash = places.atHash
        acr = places.acr
        name = places.name
        email = places.email
        preferredUsername = places.preferredUsername
        exp = places.exp
        iat = places.iat
        authTime = places.authTime
        aud = places.aud
        amr = places.amr
    }

    /// Scans `payload` (see ``JSONParser/scanObject(_:_:)``); nil when the
    /// full parser must read it instead.
    static func scan(_ payload: [UInt8]) -> PayloadClaims? {
        var places = Places()
        let scanned = payload.withUnsafeBufferPointer { bytes in
            JSONParser.scanObject(bytes) { name, parser throws(JSONParser.Failure) in
                guard let claim = IDTokenClaimValues.Claim(name) else { return try parser.skipValue() }
                try places.read(claim, with: &parser)
            }
        }
        return scanned ? PayloadClaims(payload: payload, places: places) : nil
    }

    // MARK: Reading values

    /// The JSON value at `range` of the payload (which the scan checked).
    func value(at range: Range<Int>) -> JSONValue {
        payload.withUnsafeBufferPointer { bytes in
            (try? JSONParser.parse(UnsafeBufferPointer(rebasing: bytes[range]))) ?? .null
        }
    }

    /// The string whose JSON text is at `range`.
    func string(at range: Range<Int>, plain: Bool) -> String {
        if plain {
            return payload.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[Self.content(range)]), as: UTF8.self) }
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
        var expected = expected
        let answer: Bool? = expected.withUTF8 { wanted in
            guard plain else { return nil }
            // The same bytes are the same string; different bytes are different
            // strings only when both are plain (a non-ASCII scalar such as the
            // Kelvin sign can be canonically equivalent to an ASCII letter).
            let content = Self.content(range)
            let same = content.count == wanted.count && (content.isEmpty || payload.withUnsafeBufferPointer {
                memcmp($0.baseAddress! + content.lowerBound, wanted.baseAddress!, content.count) == 0
            })
            return same || isPlainASCII(wanted) ? same : nil
        }
        return answer ?? (string(at: range, plain: plain) == expected)
    }

    /// Whether the string of `text` equals `expected` byte for byte, compared
    /// in constant time (as ``constantTimeEquals(_:_:)-(String,String)`` compares strings); nil when absent.
    func constantTimeEquals(_ text: Text, _ expected: String) -> Bool? {
        guard case .string(let range, let plain) = text else { return nil }
        guard plain else { return AuthFlow.constantTimeEquals(string(at: range, plain: false), expected) }
        var expected = expected
        return payload.withUnsafeBufferPointer { bytes in
            expected.withUTF8 { AuthFlow.constantTimeEquals(UnsafeBufferPointer(rebasing: bytes[Self.content(range)]), $0) }
        }
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
