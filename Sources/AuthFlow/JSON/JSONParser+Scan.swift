/// Reading a JSON object member by member without building it: the fast path
/// of ID-token verification, which types a dozen claims and only needs the
/// rest to be valid.
///
/// The scan accepts a text only where ``JSONParser/parse(_:)-swift.type.method``
/// would accept it and read the same members; it uses the parser's own value,
/// string and number rules. When the text is anything it does not handle
/// cheaply (a member name that is not plain ASCII, more than
/// ``scanMemberLimit`` members) or anything is wrong, it gives up and the
/// caller parses with the full parser, which then reports the exact error.
import Foundation

extension JSONParser {
    /// The most top-level members a scan handles; more are left to the full parser.
    static let scanMemberLimit = 48

    /// Scans `bytes`, a JSON text that must be an object, calling `member`
    /// with each top-level member name and the parser positioned at its value,
    /// which `member` must consume (``parseValue()`` or ``skipValue()``).
    ///
    /// Returns false when the full parser must decide instead: the text is not
    /// an object, does not parse, repeats a top-level name, has a name with an
    /// escape or a byte outside ASCII, or has too many members.
    // Views of the input and of each name: claims are read where they lie (docs/performance.md; fuzzed: Fuzz/idtoken-scan.swift).
    static func scanObject(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ member: (_ name: UnsafeBufferPointer<UInt8>, _ parser: inout JSONParser) throws(Failure) -> Void
    ) -> Bool {
        // Small enough for the stack: 48 × 8 bytes.
        // The seen names on the stack, no heap allocation per token; `count < seen.count` bounds writes (fuzzed: Fuzz/idtoken-scan.swift).
        withUnsafeTemporaryAllocation(of: SeenName.self, capacity: scanMemberLimit) { seen in
            var parser = JSONParser(bytes)
            do throws(Failure) {
                return try parser.scanTopLevelObject(seen: seen, member)
            } catch {
                return false
            }
        }
    }

    /// A top-level name already read: a cheap key (length, first and last
    /// byte) to compare first, and where the name starts.
    private struct SeenName {
        var key: UInt32
        var start: UInt32
    }

    // The stack buffer from scanObject and views of the names (fuzzed: Fuzz/idtoken-scan.swift).
    private mutating func scanTopLevelObject(
        seen: UnsafeMutableBufferPointer<SeenName>,
        _ member: (UnsafeBufferPointer<UInt8>, inout JSONParser) throws(Failure) -> Void
    ) throws(Failure) -> Bool {
        skipWhitespace()
        guard try peek() == UInt8(ascii: "{") else { return false }
        try enterContainer()
        index += 1
        skipWhitespace()
        var count = 0
        var filter: UInt64 = 0
        if try peek() == UInt8(ascii: "}") {
            index += 1
        } else {
            repeat {
                guard try peek() == UInt8(ascii: "\""), let name = plainName(), count < seen.count,
                    name.count <= UInt16.max, bytes.count <= UInt32.max
                else { return false }
                // Duplicate names: a 64-bit filter over the keys says when a name
                // may have been seen; only then compare keys, and bytes when keys match.
                let key = UInt32(name.count) << 16 | UInt32(bytes[name.lowerBound]) << 8 | UInt32(bytes[name.upperBound - 1])
                let bit: UInt64 = 1 << ((key &* 0x9E37_79B1) >> 26)
                if filter & bit != 0 {
                    // memcmp of two names inside the input, ranges found by the scan (fuzzed: Fuzz/idtoken-scan.swift).
                    let base = bytes.baseAddress!
                    for earlier in seen[..<count]
                    where earlier.key == key
                        && memcmp(base + Int(earlier.start), base + name.lowerBound, name.count) == 0
                    {
                        return false
                    }
                }
                filter |= bit
                seen[count] = SeenName(key: key, start: UInt32(name.lowerBound))
                count += 1
                try expectNameSeparator()
                // The name as a view of the input, matched without making a String (fuzzed: Fuzz/idtoken-scan.swift).
                try member(UnsafeBufferPointer(rebasing: bytes[name]), &self)
            } while try nextMember(closing: UInt8(ascii: "}"))
        }
        depth -= 1
        skipWhitespace()
        return index == bytes.count
    }

    /// Reads the member name at `index` (an opening quote) and returns the
    /// range of its content when it is non-empty printable ASCII without
    /// escapes, whose bytes are then exactly the name; nil otherwise. Names
    /// are short, so a byte loop beats a library search here.
    private mutating func plainName() -> Range<Int>? {
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
            end += 1
        }
        guard end < bytes.count, end > start else { return nil }
        index = end + 1
        return start..<end
    }

    /// Steps over the value at `index`, checking it exactly as
    /// ``parseValue()`` would but building only nested objects (which need
    /// their names for the duplicate check).
    mutating func skipValue() throws(Failure) {
        guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): _ = try parseObject()
        case UInt8(ascii: "["): try readArray { parser throws(Failure) in try parser.skipValue() }
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "t"): try expectLiteral("true")
        case UInt8(ascii: "f"): try expectLiteral("false")
        case UInt8(ascii: "n"): try expectLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try parseNumber()
        case let byte: throw Failure(kind: .unexpectedByte(byte), offset: index)
        }
    }

    /// Steps over the value at `index` like ``skipValue()``; when it is a
    /// string of printable ASCII without escapes, returns its content, which
    /// is then exactly the string's UTF-8.
    // A view of the input, valid while the input is (fuzzed: Fuzz/idtoken-scan.swift).
    mutating func plainString() throws(Failure) -> UnsafeBufferPointer<UInt8>? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
            try skipValue()
            return nil
        }
        let start = index + 1
        guard try skipString() else { return nil }
        // The content between the quotes, inside the input (fuzzed: Fuzz/idtoken-scan.swift).
        return UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
    }

    /// Steps over the string at `index` with ``parseString()``'s checks
    /// (UTF-8, control characters, escapes, surrogates), without making a
    /// `String`. Returns whether its content is plain: printable ASCII without
    /// escapes (see ``isPlainASCII(_:)``), whose bytes are then the string's UTF-8.
    @discardableResult
    mutating func skipString() throws(Failure) -> Bool {
        index += 1 // "
        var plain = true
        // Eight plain bytes at a time (printable ASCII, no quote, no backslash).
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                // Eight bytes per load, only while index + 8 <= count (fuzzed: Fuzz/idtoken-scan.swift).
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 != 0 || hasByte(below: 0x20, in: word)
                    || hasByte(0x22, in: word) || hasByte(0x5C, in: word) || hasByte(0x7F, in: word)
                {
                    break
                }
                index += 8
            }
        }
        while true {
            guard index < bytes.count else { throw Failure(kind: .unexpectedEnd, offset: index) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return plain
            } else if byte == UInt8(ascii: "\\") {
                plain = false
                scratch.removeAll(keepingCapacity: true)
                try parseEscape()
            } else if byte < 0x20 {
                throw Failure(kind: .controlCharacter, offset: index)
            } else if byte < 0x7F {
                index += 1
            } else if byte == 0x7F {
                plain = false
                index += 1
            } else {
                plain = false
                try skipMultibyteScalar()
            }
        }
    }
}

/// Whether every byte is printable ASCII (0x20–0x7E) other than a backslash:
/// then, as the content of a JSON string, the bytes are the string's UTF-8.
/// Eight bytes at a time.
// A view of the bytes it checks, eight at a time (fuzzed: Fuzz/idtoken-scan.swift).
func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    while index + 8 <= bytes.count {
        // Eight bytes per load, only while index + 8 <= count (fuzzed: Fuzz/idtoken-scan.swift).
        let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
        if word & 0x8080_8080_8080_8080 != 0 || hasByte(below: 0x20, in: word) || hasByte(0x7F, in: word) || hasByte(0x5C, in: word) {
            return false
        }
        index += 8
    }
    while index < bytes.count {
        let byte = bytes[index]
        guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
        index += 1
    }
    return true
}

/// Whether `content`, the content of a plain JSON string (printable ASCII
/// without escapes, see ``isPlainASCII(_:)``), equals `expected` as Swift
/// compares strings; nil when only making the string can tell.
///
/// The same bytes are the same string. Different bytes are different strings
/// only when `expected` is plain too: a non-ASCII scalar (the Kelvin sign)
/// can be canonically equivalent to an ASCII letter.
// A view of a scanned payload's string, compared with memcmp after the counts (fuzzed: Fuzz/idtoken-scan.swift, Fuzz/jwt-scan.swift).
func plainContent(_ content: UnsafeBufferPointer<UInt8>, equals expected: String) -> Bool? {
    var expected = expected
    return expected.withUTF8 { wanted in
        let same =
            content.count == wanted.count
            && (content.isEmpty || memcmp(content.baseAddress!, wanted.baseAddress!, content.count) == 0)
        return same || isPlainASCII(wanted) ? same : nil
    }
}

/// Whether a byte of `word` (all bytes below 0x80) equals `byte`.
@inline(__always) func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
    hasByte(below: 1, in: word ^ (0x0101_0101_0101_0101 &* UInt64(byte)))
}

/// Whether a byte of `word` (all bytes below 0x80) is below `limit` (at most 0x80).
@inline(__always) func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
    (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080 != 0
}

// Names inside the input compared with memcmp, counts checked first (fuzzed: Fuzz/idtoken-scan.swift).
extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are exactly `literal`'s UTF-8.
    func equals(_ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == count else { return false }
        guard let baseAddress, count > 0 else { return true }
        return memcmp(baseAddress, literal.utf8Start, count) == 0
    }
}
