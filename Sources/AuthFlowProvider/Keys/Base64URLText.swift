import Foundation

/// Base64url without padding (RFC 4648 §5) for the provider's JOSE output and PKCE.
///
/// Encoding is written out by hand: a token request encodes the ID token's
/// three parts, its `at_hash`, the PKCE challenge and two new tokens, and
/// Foundation's `base64EncodedString()` followed by three
/// `replacingOccurrences` (NSString on Linux) took about a tenth of the
/// provider's CPU time per token request.
enum Base64URLText {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Encodes bytes.
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let encoded: String? = bytes.withContiguousStorageIfAvailable { encode(buffer: $0) }
        return encoded ?? Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let count = input.count
        let length = count / 3 * 4 + [0, 2, 3][count % 3]
        return String(unsafeUninitializedCapacity: length) { output in
            alphabet.withUnsafeBufferPointer { table in
                var i = 0, o = 0
                while i + 3 <= count {
                    let chunk = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                    output[o] = table[Int(chunk >> 18)]
                    output[o + 1] = table[Int(chunk >> 12 & 63)]
                    output[o + 2] = table[Int(chunk >> 6 & 63)]
                    output[o + 3] = table[Int(chunk & 63)]
                    i += 3
                    o += 4
                }
                switch count - i {
                case 1:
                    let chunk = UInt32(input[i]) << 16
                    output[o] = table[Int(chunk >> 18)]
                    output[o + 1] = table[Int(chunk >> 12 & 63)]
                    o += 2
                case 2:
                    let chunk = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
                    output[o] = table[Int(chunk >> 18)]
                    output[o + 1] = table[Int(chunk >> 12 & 63)]
                    output[o + 2] = table[Int(chunk >> 6 & 63)]
                    o += 3
                default:
                    break
                }
                return o
            }
        }
    }

    /// Decodes unpadded base64url; nil for anything else.
    static func decode(_ text: String) -> [UInt8]? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
