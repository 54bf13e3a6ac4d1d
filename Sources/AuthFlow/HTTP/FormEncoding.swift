import Foundation

/// `application/x-www-form-urlencoded` encoding that encodes every byte
/// outside the RFC 3986 unreserved set, so `+ & = % /`, spaces and non-ASCII
/// survive any server's decoder. Used for request bodies and for the query
/// of the authorization URL (never Foundation's `URLComponents`, which leaves
/// `+` alone).
public enum FormEncoding {
    static func isUnreserved(_ byte: UInt8) -> Bool {
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

    /// Percent-encodes one name or value.
    public static func escape(_ value: String) -> String {
        var output = [UInt8]()
        output.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
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
            guard let name = unescape(pieces[0]) else { return nil }
            let value = pieces.count > 1 ? unescape(pieces[1]) : ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    private static func unescape(_ text: Substring) -> String? {
        var bytes = [UInt8]()
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
