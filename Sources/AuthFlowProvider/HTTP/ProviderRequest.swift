#if EmbeddedProvider // the EmbeddedProvider package trait
import Foundation

/// An HTTP request as the provider's endpoints see it, independent of the server framework.
struct ProviderRequest: Sendable {
    /// `GET`, `POST`, …
    var method: String
    /// The path, without the query.
    var path: String
    /// The raw (percent-encoded) query, without `?`.
    var query: String
    /// Header fields in order.
    var headers: [(name: String, value: String)]
    /// The body.
    var body: [UInt8]

    /// The first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { ProviderRequest.sameFieldName($0.name, name) }?.value
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    var mediaType: String? {
        header("Content-Type").map {
            $0.split(separator: ";", maxSplits: 1).first.map(ProviderRequest.trimmedLowercase) ?? ""
        }
    }

    /// Field names are ASCII tokens (RFC 9110 §5.1): compared ASCII
    /// case-insensitively without going through NSString; anything else
    /// still by `caseInsensitiveCompare`.
    static func sameFieldName(_ a: String, _ b: String) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.allSatisfy({ $0 < 0x80 }), y.allSatisfy({ $0 < 0x80 }) else { return a.caseInsensitiveCompare(b) == .orderedSame }
        return x.count == y.count && zip(x, y).allSatisfy { asciiLowercase($0) == asciiLowercase($1) }
    }

    /// `trimmingCharacters(in: .whitespaces).lowercased()`, by hand for ASCII text.
    static func trimmedLowercase(_ text: Substring) -> String {
        let bytes = text.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return text.trimmingCharacters(in: .whitespaces).lowercased() }
        let isBlank = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }), let last = bytes.lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(decoding: bytes[first...last].map(asciiLowercase), as: UTF8.self)
    }

    private static func asciiLowercase(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }
}
#endif
