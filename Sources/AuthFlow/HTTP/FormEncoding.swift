#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded` encoding that encodes every byte
/// outside the RFC 3986 unreserved set, so `+ & = % /`, spaces and non-ASCII
/// survive any server's decoder. Used for request bodies and for the query
/// of the authorization URL (never Foundation's `URLComponents`, which leaves
/// `+` alone).
package enum FormEncoding {
    /// RFC 3986 §2.3's unreserved characters: ALPHA, DIGIT, `-`, `.`, `_`, `~`.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    /// Appends `%XX` for `byte`, in uppercase hex (RFC 3986 §2.1).
    package static func appendEscape(of byte: UInt8, to output: inout [UInt8]) {
        output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
    }

    /// Percent-encodes one name or value.
    public static func escape(_ value: String) -> String {
        var output = [UInt8]()
        output.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                appendEscape(of: byte, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Encodes ordered pairs as `name=value&…`.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Decodes a query or form body into ordered pairs (`+` means space).
    /// Returns nil when a percent escape is malformed or not UTF-8.
    public static func decode(_ text: String) -> [(String, String)]? {
        guard !text.isEmpty else { return [] }
        var pairs: [(String, String)] = []
        for part in text.split(separator: "&", omittingEmptySubsequences: true) {
            let pieces = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(Array(pieces[0].utf8)[...]) else { return nil }
            let value = pieces.count > 1 ? unescape(Array(pieces[1].utf8)[...]) : ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// ``decode(_:)`` of a body's bytes. An all-ASCII body (the usual case) is
    /// split and unescaped straight from its bytes, without a `String` of the
    /// whole body and its Character-wise splits: in ASCII text every `&` and
    /// `=` is a Character of its own, so the pairs are the same. Anything else
    /// goes through ``decode(_:)``.
    package static func decode(utf8 body: [UInt8]) -> [(String, String)]? {
        guard body.allSatisfy({ $0 < 0x80 }) else { return decode(String(decoding: body, as: UTF8.self)) }
        var pairs: [(String, String)] = []
        for part in body.split(separator: UInt8(ascii: "&")) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            guard let name = unescape(part[..<(equals ?? part.endIndex)]) else { return nil }
            let value = equals.map { unescape(part[part.index(after: $0)...]) } ?? ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// One form-encoded name or value on its own (`+` is a space), such as
    /// each half of HTTP Basic credentials (RFC 6749 §2.3.1). Returns nil
    /// when a percent escape is malformed or not UTF-8.
    package static func decodeComponent(_ text: Substring) -> String? {
        unescape(Array(text.utf8)[...])
    }

    /// A percent-encoded URL component decoded (RFC 3986 §2.1): `%XX` is a
    /// byte and `+` stays a plus. Returns nil when an escape is malformed or
    /// the bytes are not UTF-8, as Foundation's `removingPercentEncoding` does.
    package static func percentDecoded(_ text: some StringProtocol) -> String? {
        unescape(Array(text.utf8)[...], plusIsSpace: false)
    }

    /// One name or value: `+` is a space (unless `plusIsSpace` is false),
    /// `%XX` a byte; the result must be UTF-8. `bytes` are valid UTF-8 (a
    /// piece of a `String`, or ASCII), so without `+` or `%` they are the
    /// string as they are.
    private static func unescape(_ bytes: ArraySlice<UInt8>, plusIsSpace: Bool = true) -> String? {
        guard bytes.contains(where: { ($0 == UInt8(ascii: "+") && plusIsSpace) || $0 == UInt8(ascii: "%") }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var output = [UInt8]()
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 1 < bytes.endIndex, let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else {
                    return nil
                }
                output.append(high << 4 | low)
                index += 2
            default:
                output.append(byte)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    /// The value of one hex digit, either case; nil for anything else.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
