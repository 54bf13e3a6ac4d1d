import AuthFlowTestSupport

#if CLI
import AuthFlow
import Foundation
import Testing
@testable import authflow

/// ``TextColumns`` and the CLI's dates give the text Foundation's
/// `String(format:)`, `padding(toLength:withPad:startingAt:)` and
/// `ISO8601DateFormatter` gave: Foundation, which a test may import, is the
/// oracle for every value.
@Suite("Text columns and dates as Foundation printed them")
struct TextColumnsTests {

    /// Ties and near ties (k/20, k/200, k/2000: .05, .15, .25 …), both signs,
    /// the ends of the range, and random values of every size.
    static var doubles: [Double] {
        var values: [Double] = [
            0, -0.0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.5, 1.5, 2.5, -0.04, -0.05, -0.25, -1.25, 0.0005, 0.0015, 0.0025,
            999.95, 9999.95, 1e15 + 0.25, 4_503_599_627_370_495.5, 4_503_599_627_370_496, 9_007_199_254_740_992.0.nextUp,
            1e19, 1.8446744073709552e19, 1e22, 1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
            .leastNonzeroMagnitude, .leastNormalMagnitude, Double.leastNormalMagnitude.nextDown, Double(bitPattern: 2024),
            .ulpOfOne, 1 - .ulpOfOne,
        ]
        for k in -2000...2000 {
            values += [Double(k) / 20, Double(k) / 200, Double(k) / 2000, Double(k) * 0.05, Double(k) * 0.005]
        }
        var random = SeededGenerator(state: 42)
        for _ in 0..<4000 {
            values.append(Double.random(in: 0..<10_000, using: &random))
            values.append(Double.random(in: -2..<2, using: &random))
            let any = Double(bitPattern: random.next())
            if any.isFinite { values.append(any) }
        }
        return values
    }

    @Test("fixed(_:decimals:) is %.0f, %.1f, %.2f and %.3f for every value, ties to even as printf")
    func fixed() {
        var mismatches: [String] = []
        for value in Self.doubles {
            for decimals in 0...3 {
                let expected = String(format: "%.\(decimals)f", value)
                let actual = TextColumns.fixed(value, decimals: decimals)
                if actual != expected { mismatches.append("\(value) %.\(decimals)f: \(actual), Foundation \(expected)") }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        #expect(TextColumns.fixed(0.25, decimals: 1) == "0.2" && TextColumns.fixed(0.35, decimals: 1) == "0.3")
        #expect(TextColumns.fixed(-0.04, decimals: 1) == "-0.0")
    }

    @Test("infinities and NaN as printf writes them")
    func notFinite() {
        for value in [Double.infinity, -.infinity, .nan] {
            #expect(TextColumns.fixed(value, decimals: 1) == String(format: "%.1f", value))
        }
    }

    @Test("the step line's %7.1f and 2-wide step number, the demo's total")
    func stepColumns() {
        var random = SeededGenerator(state: 7)
        let samples = (0..<2000).map { _ in Double.random(in: 0..<100_000, using: &random) }
        let values = [0, 0.05, 12.25, 999.95, 99_999.95, 1_234_567.8] + samples
        for value in values {
            #expect(TextColumns.right(TextColumns.fixed(value, decimals: 1), width: 7) == String(format: "%7.1f", value))
            #expect("\ntotal \(TextColumns.fixed(value, decimals: 1)) ms" == String(format: "\ntotal %.1f ms", value))
        }
        for count in 0...120 {
            #expect(TextColumns.right(String(count), width: 2) == String(format: "%2ld", count))
        }
    }

    @Test("zeroPadded(_:width:) is %04d (the backchannel binding message), and other widths")
    func zeroPadded() {
        for value in Array(0..<10_000) + [-1, -42, -999, -1000, -12345, 123_456, Int.max, Int.min + 1] {
            #expect(TextColumns.zeroPadded(value, width: 4) == String(format: "%04ld", value))
            #expect(TextColumns.zeroPadded(value, width: 1) == String(format: "%01ld", value))
            #expect(TextColumns.zeroPadded(value, width: 7) == String(format: "%07ld", value))
        }
    }

    @Test("left(_:width:) is padding(toLength:withPad:startingAt:): padded, exact or cut, by UTF-16 unit")
    func left() {
        let texts = [
            "", "a", "sub", "email_verified", "preferred_username", "exactly-twenty-chars", "twenty-one-characters",
            "a claim name longer than twenty-six characters", "café", "cafe\u{301}", "naïve-ünïcödé-claim-name-x",
            "emoji 😀 here", "日本語のクレーム名",
            // A surrogate pair cut in two at widths 18, 19, 20 and 26.
            String(repeating: "x", count: 17) + "😀", String(repeating: "x", count: 18) + "😀",
            String(repeating: "x", count: 19) + "😀y", String(repeating: "x", count: 25) + "😀y",
        ]
        for text in texts {
            for width in [0, 1, 18, 19, 20, 26] {
                #expect(TextColumns.left(text, width: width) == text.padding(toLength: width, withPad: " ", startingAt: 0))
            }
        }
    }

    /// Dates as `authflow status`, the demo and kubectl's ExecCredential print them.
    static var dates: [Date] {
        var dates = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_796_029_200), Date(timeIntervalSince1970: 1_800_000_000),
            Date(timeIntervalSince1970: 1_796_029_200.999), Date(timeIntervalSince1970: 1_796_029_199.5), Date(timeIntervalSince1970: -0.5),
            Date(timeIntervalSince1970: -1.999), Date(timeIntervalSince1970: 951_782_400), Date(timeIntervalSince1970: 4_102_444_800),
            Date(timeIntervalSince1970: 253_402_300_799), Date(timeIntervalSince1970: 2_147_483_647),
            Date(timeIntervalSince1970: -2_208_988_800), Date(timeIntervalSince1970: 1_796_029_199.9996),
        ]
        var random = SeededGenerator(state: 11)
        for _ in 0..<5000 {
            // Year 1 to year 11476. Before year 1 the texts differ: the formatter wrote the year
            // of the era (1 BC as 0001), the style writes ISO 8601's (0000); no token is that old.
            let whole = Double(Int.random(in: -62_135_596_800...300_000_000_000, using: &random))
            dates.append(Date(timeIntervalSince1970: whole))
            // Just below and above a whole second, where the formatter's millisecond rounding shows.
            for fraction in [0.9994, 0.9995, 0.99951, 0.9996, 0.0004, 0.0005, -0.0004, -0.0005, -0.0006] {
                dates.append(Date(timeIntervalSince1970: (whole / 100).rounded(.down) + fraction))
            }
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0..<4_102_444_800, using: &random)))
        }
        return dates
    }

    @Test("InternetDateTime is ISO8601DateFormatter's default and .withInternetDateTime text, its rounding included")
    func dates() {
        let formatter = ISO8601DateFormatter()
        let internet = ISO8601DateFormatter()
        internet.formatOptions = [.withInternetDateTime]
        var mismatches: [String] = []
        for date in Self.dates {
            let actual = InternetDateTime.string(from: date)
            let expected = formatter.string(from: date)
            if actual != expected || internet.string(from: date) != expected {
                mismatches.append("\(date.timeIntervalSince1970): \(actual), Foundation \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(20))")
        #expect(InternetDateTime.string(from: Date(timeIntervalSince1970: 1_796_029_200)) == "2026-11-30T09:00:00Z")
        #expect(InternetDateTime.string(from: Date(timeIntervalSince1970: 1_796_029_199.9996)) == "2026-11-30T09:00:00Z")
    }

    @Test("the demo's time claims and kubectl's expirationTimestamp")
    func dateOutput() {
        for seconds in [0, 1_796_029_200, 1_796_029_200.75, 1_796_029_199.9996, 1_800_000_000, 4_102_444_799.5] as [Double] {
            let expected = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
            #expect(DemoRun.show(.number(seconds), claim: "exp") == "\(Int(seconds)) (\(expected))")
            let data = ExecCredential(apiVersion: "client.authentication.k8s.io/v1", interactive: false)
                .response(token: "t", expiresAt: Date(timeIntervalSince1970: seconds))
            #expect(String(decoding: data, as: UTF8.self).contains(#""expirationTimestamp":"\#(expected)""#))
        }
    }
}
#endif
