import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLengthUpTo40() {
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) }
            let text = Base64URL.encode(bytes)
            #expect(!text.contains("="))
            #expect(!text.contains("+"))
            #expect(!text.contains("/"))
            #expect(text.count == (length * 4 + 2) / 3)
            // Same as Foundation's base64 with the URL alphabet and no padding.
            let foundation = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(text == foundation)
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
        }
    }

    @Test func knownValues() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("") == [])
        #expect(Base64URL.decode("AQ") == [0x01])
    }

    @Test(arguments: ["AQ==", "AQ=", "+_8", "/_8", "ab+c", "ab/c", "A", "AAAAA", "AB", "AAB", "a b", "é"])
    func rejectsNonCanonicalOrForeignInput(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    /// The two-characters-at-a-time table against the alphabet, for every pair
    /// of bytes in every pair position of an eight-character round.
    @Test func everyPairOfBytesDecodesAsTheAlphabetSays() {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var value = [Int?](repeating: nil, count: 256)
        for (index, byte) in alphabet.enumerated() { value[Int(byte)] = index }
        var failures = 0
        for position in [0, 2, 4, 6] {
            for first in 0...255 {
                for second in 0...255 {
                    var text = Array("AAAAAAAA".utf8)
                    text[position] = UInt8(first)
                    text[position + 1] = UInt8(second)
                    let decoded = text.withUnsafeBufferPointer { Base64URL.decode($0) }
                    let expected: [UInt8]? = value[first].flatMap { high in
                        value[second].map { low in
                            // 48 bits, all zero except the pair's 12 at its place.
                            let bits = UInt64(high << 6 | low) << (36 - 6 * UInt64(position))
                            return (0..<6).map { UInt8(truncatingIfNeeded: bits >> (40 - 8 * UInt64($0))) }
                        }
                    }
                    if decoded != expected { failures += 1 }
                }
            }
        }
        #expect(failures == 0)
    }
}
