/// Byte-level writers for a DPoP proof: JSON strings, decimal integers and
/// base64url appended straight into one `[UInt8]` buffer, without an encoder
/// or intermediate strings.
enum ProofBytes {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string (RFC 8259 §7): quoted, with `"` and `\`
    /// escaped, control characters (U+0000–U+001F) as `\u00XX`, and
    /// everything else, non-ASCII included, as its UTF-8 bytes.
    static func appendJSONString(_ text: String, to output: inout [UInt8]) {
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

    /// Base64url without padding (RFC 4648 §5), appended to `output`.
    static func appendBase64URL<Bytes: Sequence>(_ bytes: Bytes, to output: inout [UInt8]) where Bytes.Element == UInt8 {
        appendBase64URL(Array(bytes), to: &output)
    }

    /// Base64url without padding, for an array: the output is sized once and
    /// written by index, three input bytes to four characters.
    static func appendBase64URL(_ input: [UInt8], to output: inout [UInt8]) {
        let table = alphabet
        let whole = input.count / 3 * 3, rest = input.count - whole
        var at = output.count
        output.append(contentsOf: repeatElement(0, count: whole / 3 * 4 + (rest == 0 ? 0 : rest + 1)))
        var index = 0
        while index < whole {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output[at] = table[Int(group >> 18)]
            output[at + 1] = table[Int(group >> 12 & 0x3F)]
            output[at + 2] = table[Int(group >> 6 & 0x3F)]
            output[at + 3] = table[Int(group & 0x3F)]
            index += 3
            at += 4
        }
        if rest == 1 {
            let group = UInt32(input[index]) << 16
            output[at] = table[Int(group >> 18)]
            output[at + 1] = table[Int(group >> 12 & 0x3F)]
        } else if rest == 2 {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output[at] = table[Int(group >> 18)]
            output[at + 1] = table[Int(group >> 12 & 0x3F)]
            output[at + 2] = table[Int(group >> 6 & 0x3F)]
        }
    }

    /// The 16 bytes of two words, big-endian (a `jti`), without
    /// building an array.
    static func bytes(_ high: UInt64, _ low: UInt64) -> LazyMapSequence<Range<Int>, UInt8> {
        (0..<16).lazy.map { index in
            UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (56 - 8 * (index % 8)))
        }
    }
}
