import Foundation

@testable import AuthFlow

/// Base64url (RFC 4648 §5, unpadded): decoding any text either fails or gives
/// bytes that encode back to the same text (the canonical form), the same
/// bytes Foundation decodes from the padded standard alphabet; every decoding
/// entry point agrees, and so do both encoding entry points; encoding any
/// bytes decodes back to them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64URL(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    // Encoding round trip on arbitrary bytes.
    let encoded = Base64URL.encode(bytes)
    fuzzCheck(Base64URL.decode(encoded) == bytes, "encode then decode lost bytes")
    fuzzCheck(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"), "the encoding is not base64url")
    // The byte-appending entry writes the same text after what the buffer holds.
    var appended = Array(bytes.prefix(3))
    Base64URL.append(bytes, to: &appended)
    fuzzCheck(appended == Array(bytes.prefix(3)) + Array(encoded.utf8), "append and encode disagree")
    fuzzCheck(Base64URL.encodedLength(bytes.count) == encoded.utf8.count, "encodedLength is wrong")

    // Decoding arbitrary text.
    let decoded = bytes.withUnsafeBufferPointer { Base64URL.decode($0) }
    let viaTemporary = bytes.withUnsafeBufferPointer { Base64URL.withDecoded($0) { Array($0) } }
    fuzzCheck(decoded == viaTemporary, "decode and withDecoded disagree")
    if let text = String(validating: bytes, as: UTF8.self) {
        fuzzCheck(Base64URL.decode(text) == decoded, "the String and buffer decoders disagree")
    }
    // Foundation as the oracle: translate to standard base64 and pad.
    var standard = String(decoding: bytes, as: UTF8.self)
    let plainAlphabet = bytes.allSatisfy {
        $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
    }
    if plainAlphabet && bytes.count % 4 != 1 {
        standard = standard.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        let foundation = Data(base64Encoded: standard).map(Array.init)
        if let decoded {
            fuzzCheck(foundation == decoded, "Foundation decodes other bytes")
        } else {
            // Refused where Foundation accepts: only non-canonical trailing bits.
            if let foundation {
                fuzzCheck(Base64URL.encode(foundation) != String(decoding: bytes, as: UTF8.self), "a canonical text was refused")
            }
        }
    } else {
        fuzzCheck(decoded == nil, "a text outside the alphabet (or of impossible length) was decoded")
    }
    if let decoded {
        fuzzCheck(Base64URL.encode(decoded) == String(decoding: bytes, as: UTF8.self), "decoded a non-canonical text")
        fuzzCheck(Base64URL.decodedLength(bytes.count) == decoded.count, "decodedLength is wrong")
    }
    return 0
}
