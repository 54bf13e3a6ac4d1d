import Foundation

/// A JWT's decoded header and payload with where each top-level payload
/// member is: what ``JWTVerifier``'s scan keeps, so that claims are read
/// where they lie (a string made only when one is asked for) instead of
/// building a dictionary of every claim for each token.
///
/// The scan (``scan(header:payload:)``) accepts a payload only where
/// `JSONParser` would parse it into the same members (see
/// ``JSONParser/scanObject(_:_:)``); anything else is left to the full path.
/// Every reading answers as the full parser's dictionary would
/// (`Fuzz/jwt-scan.swift` holds them to that).
struct ScannedJWTClaims: Sendable {
    /// A top-level payload member: where its name's bytes and its value's JSON
    /// text are, relative to the payload's start.
    struct Member: Sendable {
        let name: Range<Int>
        let value: Range<Int>
        /// Whether the value is a string whose content is plain (printable
        /// ASCII, no escape): its bytes are then the string's UTF-8.
        let plainString: Bool
    }

    /// The decoded header, then the decoded payload.
    private let bytes: [UInt8]
    private let headerCount: Int
    private let members: [Member]

    /// Decodes the header and payload segments (base64url) into one array and
    /// scans the payload; nil when either is not base64url or the full parser
    /// must read the payload. The header is not checked here: the caller's
    /// header scan does that.
    // Segments as views of the token, decoded into one exactly sized array (fuzzed: Fuzz/jwt-scan.swift).
    static func scan(header: UnsafeBufferPointer<UInt8>, payload: UnsafeBufferPointer<UInt8>) -> ScannedJWTClaims? {
        guard let headerCount = Base64URL.decodedLength(header.count), let payloadCount = Base64URL.decodedLength(payload.count) else {
            return nil
        }
        var decoded = false
        // Filled by the two decodes; nothing counts as initialized unless both succeeded.
        let bytes = [UInt8](unsafeUninitializedCapacity: headerCount + payloadCount) { buffer, initialized in
            decoded =
                Base64URL.decode(header, into: UnsafeMutableBufferPointer(rebasing: buffer[..<headerCount]))
                && Base64URL.decode(payload, into: UnsafeMutableBufferPointer(rebasing: buffer[headerCount...]))
            initialized = decoded ? headerCount + payloadCount : 0
        }
        guard decoded else { return nil }
        return scan(bytes, headerCount: headerCount)
    }

    /// Scans a decoded payload with no header (the tests' and the fuzzer's entry).
    static func scan(payload: [UInt8]) -> ScannedJWTClaims? {
        scan(payload, headerCount: 0)
    }

    private static func scan(_ bytes: [UInt8], headerCount: Int) -> ScannedJWTClaims? {
        var members: [Member] = []
        members.reserveCapacity(16)
        // The payload viewed in place; names are views inside it (fuzzed: Fuzz/jwt-scan.swift).
        let scanned = bytes.withUnsafeBufferPointer { all in
            let payload = UnsafeBufferPointer(rebasing: all[headerCount...])
            return JSONParser.scanObject(payload) { name, parser throws(JSONParser.Failure) in
                // A name the scan accepted is never empty, so it has an address inside the payload.
                let nameStart = payload.baseAddress!.distance(to: name.baseAddress!)
                let start = parser.index
                let plain =
                    try parser.peek() == UInt8(ascii: "\"")
                    ? try parser.skipString()
                    : { () throws(JSONParser.Failure) in
                        try parser.skipValue()
                        return false
                    }()
                members.append(Member(name: nameStart..<(nameStart + name.count), value: start..<parser.index, plainString: plain))
            }
        }
        return scanned ? ScannedJWTClaims(bytes: bytes, headerCount: headerCount, members: members) : nil
    }

    private init(bytes: [UInt8], headerCount: Int, members: [Member]) {
        self.bytes = bytes
        self.headerCount = headerCount
        self.members = members
    }

    // MARK: Reading

    /// Calls `body` with the decoded payload.
    // The array viewed, no copy (fuzzed: Fuzz/jwt-scan.swift).
    private func withPayload<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[headerCount...])) }
    }

    /// The member named `name`; `.unknown` when `name` is not plain ASCII (the
    /// scan's names all are, but a Swift string may equal one without being
    /// ASCII: then only the dictionary can say).
    private func member(_ name: String) -> Lookup {
        var name = name
        return name.withUTF8 { wanted in
            guard isPlainASCII(wanted), let wantedBase = wanted.baseAddress else { return .unknown }
            return withPayload { payload in
                // Names are ranges of the payload found by the scan; counts compared
                // first, then the bytes in a loop (names are short: a library call costs more).
                for member in members where member.name.count == wanted.count {
                    var index = 0
                    while index < wanted.count, payload[member.name.lowerBound + index] == wantedBase[index] { index += 1 }
                    if index == wanted.count { return .found(member) }
                }
                return .absent
            }
        }
    }

    private enum Lookup {
        case found(Member)
        case absent
        case unknown
    }

    /// The value of the claim `name`, as the full parser reads it.
    func value(_ name: String) -> JSONMemberValue? {
        switch member(name) {
        case .found(let member): value(at: member.value)
        case .absent: nil
        case .unknown: claims[name]
        }
    }

    /// Whether the payload has a member `name`.
    func contains(_ name: String) -> Bool {
        switch member(name) {
        case .found: true
        case .absent: false
        case .unknown: claims[name] != nil
        }
    }

    /// The claim `name` when it is a string.
    func string(_ name: String) -> String? {
        switch member(name) {
        case .found(let member) where member.plainString:
            // A plain string's content is its UTF-8: the value's range without its quotes (fuzzed: Fuzz/jwt-scan.swift).
            withPayload { String(decoding: UnsafeBufferPointer(rebasing: $0[Self.content(member.value)]), as: UTF8.self) }
        case .found(let member): value(at: member.value).stringValue
        case .absent: nil
        case .unknown: claims[name]?.stringValue
        }
    }

    /// The claim `name` when it is a number.
    func number(_ name: String) -> Double? {
        switch member(name) {
        case .found(let member): withPayload { Self.isNumber($0[member.value.lowerBound]) } ? value(at: member.value).numberValue : nil
        case .absent: nil
        case .unknown: claims[name]?.numberValue
        }
    }

    /// Whether the claim `name` is a string equal to `expected` as Swift
    /// compares strings: byte for byte when both are plain ASCII (then the
    /// same thing), otherwise by making the string.
    func string(_ name: String, equals expected: String) -> Bool {
        guard case .found(let member) = member(name), member.plainString else { return string(name) == expected }
        // A plain string's content, a range of the payload the scan checked (fuzzed: Fuzz/jwt-scan.swift).
        let answer = withPayload { plainContent(UnsafeBufferPointer(rebasing: $0[Self.content(member.value)]), equals: expected) }
        return answer ?? (string(name) == expected)
    }

    /// Whether the claim `name` is a string one of whose space-separated
    /// words (a `scope`'s scope tokens) is `word`: as
    /// ``VerifiedJWT/words(of:contain:)`` answers for the claim's string,
    /// read in place when both are plain ASCII.
    func claim(_ name: String, containsWord word: String) -> Bool {
        guard case .found(let member) = member(name), member.plainString else {
            return string(name).map { VerifiedJWT.words(of: $0, contain: word) } ?? false
        }
        var bytes = word
        let answer: Bool? = bytes.withUTF8 { wanted in
            // Plain ASCII on both sides: the bytes compare as the strings do.
            guard isPlainASCII(wanted) else { return nil }
            guard !wanted.isEmpty else { return false }
            return withPayload { payload in
                // Words of the string's content, a range of the payload the scan checked (fuzzed: Fuzz/jwt-scan.swift).
                let content = Self.content(member.value)
                var start = content.lowerBound
                while start < content.upperBound {
                    var end = start
                    while end < content.upperBound, payload[end] != UInt8(ascii: " ") { end += 1 }
                    if end - start == wanted.count, memcmp(payload.baseAddress! + start, wanted.baseAddress!, wanted.count) == 0 {
                        return true
                    }
                    start = end + 1
                }
                return false
            }
        }
        return answer ?? (string(name).map { VerifiedJWT.words(of: $0, contain: word) } ?? false)
    }

    /// `aud` as a list: one string, or the strings of an array (other elements skipped).
    var audience: [String] { VerifiedJWT.Contents.audience(value("aud")) }

    /// Whether `audience` is one of `aud`'s strings.
    func audienceContains(_ audience: String) -> Bool {
        if case .found(let member) = member("aud"), member.plainString { return string("aud", equals: audience) }
        return self.audience.contains(audience)
    }

    /// Every claim, parsed (a dictionary of every member, made at each call).
    var claims: [String: JSONMemberValue] {
        // The scan accepted the payload, so the full parser does too.
        withPayload { JSONParser.object($0) } ?? [:]
    }

    /// The header's members, parsed at each call.
    var header: [String: JSONMemberValue] {
        // The caller's header scan accepted the header, so the full parser does too.
        bytes.withUnsafeBufferPointer { JSONParser.object(UnsafeBufferPointer(rebasing: $0[..<headerCount])) } ?? [:]
    }

    /// The JSON value at `range` of the payload (which the scan checked).
    private func value(at range: Range<Int>) -> JSONMemberValue {
        withPayload { payload in
            // A range of the payload that the scan checked (fuzzed: Fuzz/jwt-scan.swift).
            (try? JSONParser.parse(UnsafeBufferPointer(rebasing: payload[range]))) ?? .null
        }
    }

    /// The content of the JSON string at `range`: without its quotes.
    private static func content(_ range: Range<Int>) -> Range<Int> {
        (range.lowerBound + 1)..<(range.upperBound - 1)
    }

    /// Whether a JSON value starting with `byte` is a number.
    private static func isNumber(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10
    }
}
