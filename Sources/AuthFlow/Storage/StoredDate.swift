import Foundation

/// Parses the dates AuthFlow writes to its stored files
/// (`YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]`, UTC when no offset is given)
/// by hand: this runs on every `authflow token`, and Foundation's ISO 8601
/// format style costs more than the rest of reading the profile.
enum StoredDate {
    /// The date, or nil when `text` is not in that form.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            var index = 0
            func number(_ count: Int) -> Int? {
                guard index + count <= bytes.count else { return nil }
                var value = 0
                for _ in 0..<count {
                    let byte = bytes[index]
                    guard byte >= 0x30, byte <= 0x39 else { return nil }
                    value = value * 10 + Int(byte - 0x30)
                    index += 1
                }
                return value
            }
            func expect(_ byte: UInt8) -> Bool {
                guard index < bytes.count, bytes[index] == byte else { return false }
                index += 1
                return true
            }
            guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2),
                  expect(0x54), let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2),
                  (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
                  // Foundation writes earlier dates in the Julian calendar; they are left
                  // to its own parser, so that such a date reads back as it was written.
                  year >= StoredDate.firstGregorianYear else { return nil }
            var fraction = 0.0
            if index < bytes.count, bytes[index] == 0x2E {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    fraction += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
            var offset = 0
            if index < bytes.count {
                if bytes[index] == 0x5A {
                    index += 1
                } else if bytes[index] == 0x2B || bytes[index] == 0x2D {
                    let sign = bytes[index] == 0x2B ? 1 : -1
                    index += 1
                    guard let hours = number(2), expect(0x3A), let minutes = number(2) else { return nil }
                    offset = sign * (hours * 3600 + minutes * 60)
                }
            }
            guard index == bytes.count else { return nil }
            let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
            return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
        }
    }

    /// The first whole year of the Gregorian calendar, the one this parser
    /// reads; Foundation's ISO 8601 style writes dates before 1582-10-15 in
    /// the Julian calendar.
    static let firstGregorianYear = 1583

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
