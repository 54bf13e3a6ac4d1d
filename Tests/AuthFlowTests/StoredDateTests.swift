import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow
@testable import AuthFlowStoredDate

/// The stored-date form (`AuthFlowStoredDate`): what it reads, that it writes
/// what Foundation's ISO 8601 style writes, and that a written date is a
/// fixed point of reading and writing.
@Suite("Stored dates")
struct StoredDateTests {
    static let style = Date.ISO8601FormatStyle.iso8601.year().month().day().time(includingFractionalSeconds: true)

    @Test("written dates parse back to the millisecond; offsets and Z are honoured; anything else is nil")
    func parse() throws {
        for seconds in [0.0, 951_782_400.5, 1_700_000_000.123, 4_070_908_800.999, -86_400.25] {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = try #require(StoredDate.parse(date.formatted(Self.style)))
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.001)
        }
        #expect(StoredDate.parse("2000-01-01T00:00:00Z")?.timeIntervalSince1970 == 946_684_800)
        #expect(StoredDate.parse("2000-01-01T01:30:00+01:30")?.timeIntervalSince1970 == 946_684_800)
        #expect(StoredDate.parse("1999-12-31T23:00:00-01:00")?.timeIntervalSince1970 == 946_684_800)
        #expect(StoredDate.parse("2000-01-01T00:00:00.1234567891234")?.timeIntervalSince1970 == 946_684_800.123456789)
        for bad in [
            "", "2000-01-01", "2000-13-01T00:00:00", "2000-01-01T00:00:00.", "2000-01-01T00:00:00Zjunk", "２000-01-01T00:00:00",
            "2000-01-01T00:00:00+01", "2000-01-01T00:00:00.5x", "1582-12-31T23:59:59.999", "10000-01-01T00:00:00.000",
        ] {
            #expect(StoredDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("writes what Foundation's ISO 8601 style writes for the same millisecond")
    func writeAgreesWithFoundation() throws {
        let first = try #require(StoredDate.parse("1583-01-01T00:00:00.000")).timeIntervalSince1970
        let last = try #require(StoredDate.parse("9999-12-31T23:59:59.999")).timeIntervalSince1970
        var generator = SystemRandomNumberGenerator()
        var samples = [first, last, 0, -0.0004, 951_782_399.9996, 1_764_000_000.1]
        for _ in 0..<2000 { samples.append(Double.random(in: first...last, using: &generator)) }
        for seconds in samples {
            let text = StoredDate.write(Date(timeIntervalSince1970: seconds))
            // Foundation truncates to the millisecond: give it a date inside the one ours rounded to.
            let milliseconds = (seconds * 1000).rounded()
            let foundation = Date(timeIntervalSince1970: (milliseconds + 0.2) / 1000).formatted(Self.style)
            #expect(text == foundation, "\(seconds)")
        }
    }

    @Test(
        "a written date reads back to itself",
        arguments: [
            "2026-11-24T17:54:40.100", "2026-11-24T17:54:40.999", "2026-11-24T17:54:40.000", "2000-02-29T23:59:59.001",
            "1583-01-01T00:00:00.000", "9999-12-31T23:59:59.999", "1970-01-01T00:00:00.001", "1969-12-31T23:59:59.999",
        ])
    func fixedPoint(_ text: String) throws {
        let date = try #require(StoredDate.parse(text))
        #expect(StoredDate.write(date) == text)
    }

    @Test("rounds to the nearest millisecond, across a day or year, within 1583 to 9999")
    func rounding() throws {
        func write(_ text: String, plus seconds: Double) throws -> String {
            StoredDate.write(try #require(StoredDate.parse(text)).addingTimeInterval(seconds))
        }
        #expect(try write("2026-12-31T23:59:59.999", plus: 0.0006) == "2027-01-01T00:00:00.000")
        #expect(try write("2026-12-31T23:59:59.999", plus: 0.0004) == "2026-12-31T23:59:59.999")
        #expect(try write("1583-01-01T00:00:00.000", plus: -0.0004) == "1583-01-01T00:00:00.000")
        #expect(try write("1583-01-01T00:00:00.000", plus: -0.0006) == "1583-01-01T00:00:00.000")
        #expect(try write("9999-12-31T23:59:59.999", plus: 0.0006) == "9999-12-31T23:59:59.999")
    }

    @Test("write: the stored form for every date, the ends of the years covered beyond them")
    func writeClamps() throws {
        let first = "1583-01-01T00:00:00.000"
        let last = "9999-12-31T23:59:59.999"
        for (seconds, text) in [
            (Double.nan, first), (-.infinity, first), (-1e300, first), (-1e15, first), (-12_212_553_600.0006, first),
            (.infinity, last), (1e300, last), (1e15, last), (2_521_795_481_680.008, last), (253_402_300_799.9996, last),
            (1_764_000_000.1, "2025-11-24T16:00:00.100"),
        ] {
            #expect(StoredDate.write(Date(timeIntervalSince1970: seconds)) == text, "\(seconds)")
        }
        #expect(StoredDate.read(first).map(StoredDate.write) == first)
        #expect(StoredDate.read(last).map(StoredDate.write) == last)
    }

    @Test("days and civil dates convert both ways")
    func civilDays() {
        var days = StoredDate.daysFromCivil(year: 1583, month: 1, day: 1)
        let end = StoredDate.daysFromCivil(year: 10000, month: 1, day: 1)
        var checked = 0
        while days < end {
            let (year, month, day) = StoredDate.civilFromDays(days)
            if StoredDate.daysFromCivil(year: year, month: month, day: day) != days {
                Issue.record("day \(days) is \(year)-\(month)-\(day)")
                break
            }
            days += 1
            checked += 1
        }
        #expect(checked == 3_074_246)
        #expect(StoredDate.civilFromDays(0) == (1970, 1, 1))
        #expect(StoredDate.civilFromDays(11_016) == (2000, 2, 29))
    }
}
