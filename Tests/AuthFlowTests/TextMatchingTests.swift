import Foundation
import Testing

@testable import AuthFlow

/// The engine's own trimming, ASCII case-insensitive comparison and percent
/// decoding, which stand in for Foundation's on Linux (FoundationEssentials
/// alone): Foundation's methods are the oracle wherever the engine keeps their
/// meaning.
@Suite struct TextMatchingTests {
    /// Every Unicode scalar is trimmed exactly when Foundation's
    /// `CharacterSet.whitespaces` (or `.whitespacesAndNewlines`) holds it.
    @Test func trimmingMatchesFoundationsSetsOnEveryScalar() {
        var mismatches: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(scalar)
            if text.trimmingWhitespace().isEmpty != CharacterSet.whitespaces.contains(scalar) {
                mismatches.append("whitespace U+\(String(value, radix: 16))")
            }
            if text.trimmingWhitespaceAndNewlines().isEmpty != CharacterSet.whitespacesAndNewlines.contains(scalar) {
                mismatches.append("whitespace and newlines U+\(String(value, radix: 16))")
            }
        }
        #expect(mismatches == [])
    }

    /// Around a word, a sample of scalars trims as Foundation's methods do.
    @Test func trimmingAroundAWordMatchesFoundation() {
        let scalars: [Unicode.Scalar] = [
            "\t", "\n", "\r", " ", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}",
            "\u{2000}", "\u{200B}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{3000}", "\u{FEFF}", "a", "é",
        ]
        for scalar in scalars {
            let around = "\(scalar)\(scalar)a b\(scalar)"
            #expect(around.trimmingWhitespace() == around.trimmingCharacters(in: .whitespaces))
            #expect(around.trimmingWhitespaceAndNewlines() == around.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }

    @Test func trimmingKeepsTheInsideAndEmptiesBlankText() {
        #expect(" \t a \t b \u{00A0}\u{3000}".trimmingWhitespace() == "a \t b")
        #expect("\n a \n".trimmingWhitespace() == "\n a \n")
        #expect("\r\n a \u{2028}".trimmingWhitespaceAndNewlines() == "a")
        #expect(" \t\u{00A0} ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespaceAndNewlines() == "")
        #expect("[::1]".trimmingScalars(where: { $0 == "[" || $0 == "]" }) == "::1")
        let header = "max-age=60, no-cache"
        #expect(header.split(separator: ",")[1].trimmingWhitespace() == "no-cache")
    }

    @Test func asciiCaseInsensitiveEquality() {
        #expect("DPoP".equalsIgnoringASCIICase("dpop"))
        #expect("Bearer".equalsIgnoringASCIICase("BEARER"))
        #expect("WWW-Authenticate"[...].equalsIgnoringASCIICase("www-authenticate"))
        #expect(!"Bearer".equalsIgnoringASCIICase("Bearer "))
        #expect(!"Bearer".equalsIgnoringASCIICase("Beare"))
        #expect(!"".equalsIgnoringASCIICase("a"))
        #expect("".equalsIgnoringASCIICase(""))
        // Letters and the bytes beside them: `@` (0x40) and `[` (0x5B) are no letters' other case.
        #expect(!"@".equalsIgnoringASCIICase("`"))
        #expect(!"[".equalsIgnoringASCIICase("{"))
        // Only ASCII letters fold: the Kelvin sign is no K (Foundation's Unicode folding says it is).
        #expect(!"\u{212A}".equalsIgnoringASCIICase("k"))
        #expect("\u{212A}".caseInsensitiveCompare("k") == .orderedSame)
        #expect(!"É".equalsIgnoringASCIICase("é"))
    }

    @Test func asciiCaseInsensitiveEqualityMatchesFoundationOnASCII() {
        let words = ["DPoP", "dpop", "Bearer", "bearer", "BEARER", "Basic", "x-y", "X-Y", "a1", "A1", "", "@", "`"]
        for left in words {
            for right in words {
                #expect(
                    left.equalsIgnoringASCIICase(right) == (left.caseInsensitiveCompare(right) == .orderedSame),
                    "\(left) against \(right)")
            }
        }
    }

    /// RFC 3986 percent decoding: `+` stays a plus (unlike a form), and a
    /// malformed escape or bytes that are not UTF-8 give nil, as Foundation's
    /// `removingPercentEncoding` does.
    @Test func percentDecodingMatchesFoundation() {
        let inputs = [
            "plain", "a+b", "a%2Bb", "%20", "caf%C3%A9", "%F0%9F%98%80", "%", "%2", "%zz", "%C3", "%FF", "%25",
            "user%40example.com", "p%3Ass", "", "100%", "%e2%82%ac",
        ]
        for input in inputs {
            #expect(FormEncoding.percentDecoded(input) == input.removingPercentEncoding, "\(input)")
        }
        #expect(FormEncoding.percentDecoded("a+b") == "a+b")
        #expect(FormEncoding.decodeComponent("a+b") == "a b")
        #expect(FormEncoding.percentDecoded("%C3") == nil)
    }
}
