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
}
