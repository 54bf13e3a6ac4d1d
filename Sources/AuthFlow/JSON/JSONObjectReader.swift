#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A JSON object read in place: the one reader of every signed token's header
/// and payload (ID tokens, JWT access tokens, logout and port tokens, DPoP
/// proofs, client assertions).
///
/// Reading checks the whole text with ``JSONParser``'s own rules (its string,
/// number, nesting and nested-object code) and records where each top-level
/// member's name and value are; a value is made only for the member asked
/// for. It accepts exactly the texts ``JSONParser/object(_:)`` accepts,
/// whatever their member names (escaped, outside ASCII) or member count, and
/// refuses the others with the `Failure` the parser throws (a text that is
/// JSON but not an object: `unexpectedByte` at its first byte).
/// Member names are compared as Swift strings, as the parser's dictionary
/// compares them: `"é"` and `"e\u0301"` are one name, so a text with both is
/// refused as a duplicate, and either finds the other.
/// `Fuzz/token-reader.swift` holds it to the parser.
package struct JSONObjectReader: Sendable {
    /// A top-level member: where its name's content and its value's JSON text
    /// are in ``bytes``. A trivial type (no reference inside), so the look-ups
    /// that run through the members for each claim copy no reference count.
    struct Member: Sendable {
        let name: Range<Int>
        let value: Range<Int>
        /// Whether the value is a string whose content is plain: its bytes are then the string's UTF-8.
        let plainString: Bool
    }

    /// The text, possibly with other bytes around it (a token's other parts).
    private let bytes: [UInt8]
    private let members: [Member]
    /// The unescaped names of the members whose names are not plain (an
    /// escape, or a byte outside printable ASCII), by index in ``members``:
    /// empty for the tokens servers issue.
    private let decodedNames: [Int: String]

    /// Reads the JSON object text at `range` of `bytes`, kept (not copied).
    init(_ bytes: [UInt8], in range: Range<Int>) throws(JSONParser.Failure) {
        // The text viewed where it lies in the array (fuzzed: Fuzz/token-reader.swift).
        let read: Result<([Member], [Int: String]), JSONParser.Failure> = bytes.withUnsafeBufferPointer { all in
            Result { () throws(JSONParser.Failure) in
                try Self.read(UnsafeBufferPointer(rebasing: all[range]), offset: range.lowerBound)
            }
        }
        (members, decodedNames) = try read.get()
        self.bytes = bytes
    }

    /// Reads `bytes`, a whole JSON object text.
    init(_ bytes: [UInt8]) throws(JSONParser.Failure) {
        try self.init(bytes, in: bytes.indices)
    }

    /// The JSON text of `object`, read (for claims that come as a dictionary:
    /// stored ones, an introspection answer).
    package init(_ object: [String: JSONMemberValue]) {
        // A dictionary of JSON values always encodes, to a text the parser accepts.
        let text = (try? JSONEncoder().encode(object)).map { [UInt8]($0) } ?? Array("{}".utf8)
        self = (try? JSONObjectReader(text)) ?? JSONObjectReader(empty: ())
    }

    private init(empty: Void) {
        bytes = []
        members = []
        decodedNames = [:]
    }

    /// The member names seen before the cheap duplicate check gives way to a set of strings.
    private static let cheapNameLimit = 32

    // The text as a view; ranges are recorded relative to the array, by `offset` (fuzzed: Fuzz/token-reader.swift).
    private static func read(
        _ text: UnsafeBufferPointer<UInt8>, offset: Int
    ) throws(JSONParser.Failure) -> (members: [Member], decodedNames: [Int: String]) {
        var parser = JSONParser(text)
        parser.skipWhitespace()
        guard try parser.peek() == UInt8(ascii: "{") else {
            // Not an object: the parser's own error for what is not JSON, else the first byte.
            let start = parser.index
            _ = try JSONParser.parse(text)
            throw JSONParser.Failure(kind: .unexpectedByte(text[start]), offset: start)
        }
        try parser.enterContainer()
        parser.index += 1
        parser.skipWhitespace()
        var members: [Member] = []
        // An ID token has a dozen members or so: one allocation.
        members.reserveCapacity(16)
        var decodedNames: [Int: String] = [:]
        // Names as strings, once a name is not plain or there are many: Swift's
        // string hashing then decides duplicates exactly as the parser's dictionary does.
        var seen: Set<String>?
        var filter: UInt64 = 0
        var duplicate: String?
        if try parser.peek() == UInt8(ascii: "}") {
            parser.index += 1
        } else {
            repeat {
                guard try parser.peek() == UInt8(ascii: "\"") else { throw parser.unexpected() }
                let nameStart = parser.index
                var decodedName: String?
                if !(try parser.skipString()) {
                    parser.index = nameStart
                    decodedName = try parser.parseString()
                }
                let name = (nameStart + 1)..<(parser.index - 1)
                if seen == nil, decodedName != nil || members.count >= cheapNameLimit {
                    seen = Set(members.indices.map { Self.name(at: $0, of: members, decodedNames, in: text, offset: offset) })
                }
                if seen != nil {
                    let string = decodedName ?? Self.string(text, name)
                    if !seen!.insert(string).inserted, duplicate == nil { duplicate = string }
                } else if Self.isRepeated(name, in: text, members: members, offset: offset, filter: &filter), duplicate == nil {
                    duplicate = Self.string(text, name)
                }
                try parser.expectNameSeparator()
                let valueStart = parser.index
                let plain: Bool
                if try parser.peek() == UInt8(ascii: "\"") {
                    plain = try parser.skipString()
                } else {
                    try parser.skipValue()
                    plain = false
                }
                if let decodedName { decodedNames[members.count] = decodedName }
                members.append(
                    Member(
                        name: (name.lowerBound + offset)..<(name.upperBound + offset),
                        value: (valueStart + offset)..<(parser.index + offset), plainString: plain))
            } while try parser.nextMember(closing: UInt8(ascii: "}"))
        }
        // The parser reports a repeated name when the object ends, after any error inside it.
        if let duplicate { throw JSONParser.Failure(kind: .duplicateName(duplicate), offset: parser.index - 1) }
        parser.depth -= 1
        parser.skipWhitespace()
        guard parser.index == text.count else { throw JSONParser.Failure(kind: .trailingData, offset: parser.index) }
        return (members, decodedNames)
    }

    /// Whether the plain name at `name` of `text` was seen among `members` (all
    /// plain): a 64-bit filter over a cheap key (length, first and last byte)
    /// says when it may have been; only then are the bytes compared.
    // memcmp of two names inside the text, ranges found by the read (fuzzed: Fuzz/token-reader.swift).
    private static func isRepeated(
        _ name: Range<Int>, in text: UnsafeBufferPointer<UInt8>, members: [Member], offset: Int, filter: inout UInt64
    ) -> Bool {
        let first = name.isEmpty ? 0 : UInt32(text[name.lowerBound])
        let last = name.isEmpty ? 0 : UInt32(text[name.upperBound - 1])
        let key = UInt32(truncatingIfNeeded: name.count) << 16 | first << 8 | last
        let bit: UInt64 = 1 << ((key &* 0x9E37_79B1) >> 26)
        defer { filter |= bit }
        guard filter & bit != 0 else { return false }
        return members.contains { member in
            let earlier = (member.name.lowerBound - offset)..<(member.name.upperBound - offset)
            return earlier.count == name.count
                && (name.isEmpty || memcmp(text.baseAddress! + earlier.lowerBound, text.baseAddress! + name.lowerBound, name.count) == 0)
        }
    }

    /// The plain bytes at `range` of `text` as a string.
    // A range of the text the read checked (fuzzed: Fuzz/token-reader.swift).
    private static func string(_ text: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: text[range]), as: UTF8.self)
    }

    /// The name of the member at `index` as a string.
    // The text the read checked; the member's range made relative to it (fuzzed: Fuzz/token-reader.swift).
    private static func name(
        at index: Int, of members: [Member], _ decodedNames: [Int: String], in text: UnsafeBufferPointer<UInt8>, offset: Int
    ) -> String {
        if let decoded = decodedNames[index] { return decoded }
        let name = members[index].name
        return string(text, (name.lowerBound - offset)..<(name.upperBound - offset))
    }

    // MARK: Finding a member

    /// The member named `name`, compared as Swift compares strings: byte for
    /// byte when both names are plain (then the same thing), otherwise as strings.
    private func member(_ name: String) -> Member? {
        guard decodedNames.isEmpty else { return memberComparingStrings(name) }
        var wanted = name
        return wanted.withUTF8 { wanted in
            guard isPlainASCII(wanted) else { return memberComparingStrings(name) }
            // Names are ranges of the bytes found by the read; counts compared first (fuzzed: Fuzz/token-reader.swift).
            return bytes.withUnsafeBufferPointer { all in
                for member in members where member.name.count == wanted.count {
                    // Byte by byte: claim names are a few bytes, shorter than a call to memcmp costs.
                    var index = 0
                    while index < wanted.count, all[member.name.lowerBound + index] == wanted[index] { index += 1 }
                    if index == wanted.count { return member }
                }
                return nil
            }
        }
    }

    /// The member named `name`, every name made a string: when a name in the
    /// text is not plain, or `name` is not.
    private func memberComparingStrings(_ name: String) -> Member? {
        // The whole array viewed, so that names are made from their ranges (fuzzed: Fuzz/token-reader.swift).
        bytes.withUnsafeBufferPointer { text in
            members.indices.first { Self.name(at: $0, of: members, decodedNames, in: text, offset: 0) == name }.map { members[$0] }
        }
    }

    /// Calls `body` with the bytes at `range`.
    // A range the read checked, viewed in the array (fuzzed: Fuzz/token-reader.swift).
    private func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The content of the JSON string at `range`: without its quotes.
    private static func content(_ range: Range<Int>) -> Range<Int> {
        (range.lowerBound + 1)..<(range.upperBound - 1)
    }

    private func value(of member: Member) -> JSONMemberValue {
        // The read checked this value, so the parser accepts it.
        withBytes(member.value) { try? JSONParser.parse($0) } ?? .null
    }

    // MARK: Reading

    /// What kind of value a member has, without making it.
    package enum Kind: Equatable {
        case absent
        /// A string; `empty` when it is `""`.
        case string(empty: Bool)
        case number
        case other
    }

    /// The kind of the member `name`'s value.
    package func kind(_ name: String) -> Kind {
        member(name).map(kind(of:)) ?? .absent
    }

    private func kind(of member: Member) -> Kind {
        switch bytes[member.value.lowerBound] {
        case UInt8(ascii: "\""): return .string(empty: member.value.count == 2)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: return .other
        }
    }

    /// The value of the member `name`, as the parser reads it.
    package func value(_ name: String) -> JSONMemberValue? { member(name).map(value(of:)) }

    /// Whether the object has a member `name` (of any type, `null` included).
    package func contains(_ name: String) -> Bool { member(name) != nil }

    /// The member `name` when it is a string.
    package func string(_ name: String) -> String? {
        guard let member = member(name) else { return nil }
        guard member.plainString else { return value(of: member).stringValue }
        // A plain string's content is its UTF-8 (fuzzed: Fuzz/token-reader.swift).
        return withBytes(Self.content(member.value)) { String(decoding: $0, as: UTF8.self) }
    }

    /// The member `name` when it is a number (always finite: the parser refuses others).
    package func number(_ name: String) -> Double? {
        guard let member = member(name), kind(of: member) == .number else { return nil }
        return value(of: member).numberValue
    }

    /// Whether the member `name` is a string equal to `expected` byte for
    /// byte, as RFC 7519 §7.3 compares claim strings (no Unicode
    /// equivalence: the Kelvin sign is not `K`).
    package func string(_ name: String, equals expected: String) -> Bool {
        let decoded = { string(name)?.hasSameBytes(as: expected) ?? false }
        guard let member = member(name), member.plainString else { return decoded() }
        // A plain string's content, compared in place (fuzzed: Fuzz/token-reader.swift).
        return withBytes(Self.content(member.value)) { plainContent($0, equals: expected) }
    }

    /// Whether the member `name` is a string one of whose space-separated words
    /// (a `scope`'s scope tokens, RFC 6749 §3.3) is `word`.
    /// Words and `word` compare byte for byte, as every claim string does;
    /// a plain string is read where it lies (fuzzed: Fuzz/token-reader.swift).
    package func string(_ name: String, containsWord word: String) -> Bool {
        guard let member = member(name), member.plainString else {
            return string(name).map { value in value.utf8.split(separator: 0x20).contains { $0.elementsEqual(word.utf8) } } ?? false
        }
        return withBytes(Self.content(member.value)) { content in
            var start = 0
            while start < content.count {
                var end = start
                while end < content.count, content[end] != 0x20 { end += 1 }
                // Empty words (two spaces in a row) are skipped, as `split` skips them.
                if end > start, plainContent(UnsafeBufferPointer(rebasing: content[start..<end]), equals: word) { return true }
                start = end + 1
            }
            return false
        }
    }

    /// `aud` as a list: one string, or the strings of an array (other elements skipped).
    package var audience: [String] {
        switch value("aud") {
        case .string(let value)?: [value]
        case .array(let values)?: values.compactMap(\.stringValue)
        default: []
        }
    }

    /// Whether `audience` is one of `aud`'s strings.
    package func audienceContains(_ audience: String) -> Bool {
        if case .string = kind("aud") { return string("aud", equals: audience) }
        return self.audience.contains { $0.hasSameBytes(as: audience) }
    }

    /// Every member, parsed (a dictionary made at each call).
    package var all: [String: JSONMemberValue] {
        var all = [String: JSONMemberValue](minimumCapacity: members.count)
        // The whole array viewed, so that names are made from their ranges (fuzzed: Fuzz/token-reader.swift).
        bytes.withUnsafeBufferPointer { text in
            for index in members.indices {
                all[Self.name(at: index, of: members, decodedNames, in: text, offset: 0)] = value(of: members[index])
            }
        }
        return all
    }
}
