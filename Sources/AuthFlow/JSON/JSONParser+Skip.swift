/// Checking JSON values without building them: what ``JSONObjectReader``
/// uses to step over the values of a token's members, with the parser's own
/// string, number and nesting rules.
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension JSONParser {
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
                // Eight bytes per load, only while index + 8 <= count (fuzzed: Fuzz/token-reader.swift).
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
// A view of the bytes it checks, eight at a time (fuzzed: Fuzz/token-reader.swift).
func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    while index + 8 <= bytes.count {
        // Eight bytes per load, only while index + 8 <= count (fuzzed: Fuzz/token-reader.swift).
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
/// without escapes, see ``isPlainASCII(_:)``), is `expected` byte for byte.
// A view of a scanned payload's string, compared with memcmp after the counts (fuzzed: Fuzz/token-reader.swift).
func plainContent(_ content: UnsafeBufferPointer<UInt8>, equals expected: String) -> Bool {
    var expected = expected
    return expected.withUTF8 { wanted in
        content.count == wanted.count && (content.isEmpty || memcmp(content.baseAddress!, wanted.baseAddress!, content.count) == 0)
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
