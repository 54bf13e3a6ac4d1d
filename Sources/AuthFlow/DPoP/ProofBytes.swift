/// Byte-level writers for a DPoP proof: JSON strings and decimal integers
/// appended straight into one `[UInt8]` buffer, without an encoder or
/// intermediate strings (base64url is ``Base64URL/append(_:to:)``).
enum ProofBytes {
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string (RFC 8259 §7): quoted, with `"` and `\`
    /// escaped, control characters (U+0000–U+001F) as `\u00XX`, and
    /// everything else, non-ASCII included, as its UTF-8 bytes.
    static func appendJSONString<Text: StringProtocol>(_ text: Text, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                output.append(UInt8(ascii: "\\"))
                output.append(byte)
            case 0..<0x20:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default:
                output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `value` in decimal, as JSON writes an integer.
    static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        repeat {
            output.append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        } while divisor > 0
    }
}
