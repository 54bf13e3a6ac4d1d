#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The dates AuthFlow writes to its stored files (credential records and
/// `authflow` profiles), read and written by hand in one place.
///
/// The written form is `YYYY-MM-DDTHH:MM:SS.mmm` in UTC, whole milliseconds,
/// the form Foundation's ISO 8601 style writes with fractional seconds, for
/// the Gregorian years 1583 to 9999. ``parse(_:)`` reads that form, with any
/// number of fraction digits (or none) and a `Z` or `±HH:MM` suffix;
/// ``read(_:)`` also takes what Foundation's ISO 8601 parser takes (files
/// written before, or edited by hand, and Foundation's Julian dates before
/// 1583).
///
/// ``write(_:)`` rounds to the millisecond, and reading a written date gives
/// back that millisecond, so `write(read(write(d)))` is `write(d)`: a record
/// saved again and again keeps its dates. A date outside those years is
/// written as the first or last millisecond of the range. No server-given
/// date a client compares with the clock is that far out, and the
/// alternative, Foundation's form, neither reads back every millisecond it
/// writes nor reads back at all beyond some years.
package enum StoredDate {
    /// The years this type reads and writes.
    static let years = 1583...9999

    /// The first and last millisecond of ``years``, since 1970.
    private static let writtenMilliseconds =
        daysFromCivil(year: years.lowerBound, month: 1, day: 1) * 86_400_000...daysFromCivil(year: years.upperBound + 1, month: 1, day: 1)
        * 86_400_000 - 1

    /// Foundation's form of a stored date, read for dates not in the form above.
    private static let foundationStyle = Date.ISO8601FormatStyle.iso8601.year().month().day()
        .time(includingFractionalSeconds: true)

    /// The date a stored file names: the form ``parse(_:)`` reads, else any
    /// ISO 8601 date Foundation reads; nil when neither reads `text`.
    package static func read(_ text: String) -> Date? {
        if let date = parse(text) { return date }
        if let date = try? Date(text, strategy: foundationStyle) { return date }
        return try? Date(text, strategy: .iso8601)
    }

    /// `date` as stored files hold it, rounded to the millisecond; a date
    /// outside ``years`` is written as the nearest end of that range (not a
    /// number: the first, a date long past).
    package static func write(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let range = writtenMilliseconds
        // Beyond 1e15 s (and for infinities and NaN) the date is far outside
        // the range, and the milliseconds would not fit an Int.
        let milliseconds = abs(seconds) < 1e15 ? Int((seconds * 1000).rounded()) : (seconds > 0 ? range.upperBound : range.lowerBound)
        return format(milliseconds: min(max(milliseconds, range.lowerBound), range.upperBound))
    }

    /// The date `text` names, or nil when it is not in the form above or
    /// its year is outside ``years``.
    package static func parse(_ text: String) -> Date? {
        var reader = Reader(text.utf8)
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
            let day = reader.digits(2), reader.skip("T"), let hour = reader.digits(2), reader.skip(":"),
            let minute = reader.digits(2), reader.skip(":"), let second = reader.digits(2),
            years.contains(year), (1...12).contains(month), (1...31).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var nanoseconds = 0
        if reader.skip(".") {
            guard let value = reader.fractionInNanoseconds() else { return nil }
            nanoseconds = value
        }
        var offset = 0
        if reader.skip("Z") {
            // UTC, as with no suffix.
        } else if let sign = reader.sign() {
            guard let hours = reader.digits(2), reader.skip(":"), let minutes = reader.digits(2) else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard reader.atEnd else { return nil }
        let seconds =
            daysFromCivil(year: year, month: month, day: day) * 86_400
            + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9)
    }

    /// The written form of a millisecond in ``writtenMilliseconds``.
    private static func format(milliseconds: Int) -> String {
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilFromDays(days)
        let second = millisecondOfDay / 1000
        var bytes: [UInt8] = []
        bytes.reserveCapacity(23)
        func append(_ value: Int, width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        append(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        append(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        append(day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        append(second / 3600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(second / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(second % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        append(millisecondOfDay % 1000, width: 3)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar,
    /// counted in 400-year eras of 146 097 days (Howard Hinnant's method).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        // Years start in March here, so that the leap day ends the year.
        let marchYear = month <= 2 ? year - 1 : year
        let (era, yearOfEra) = floorDivision(marchYear, 400)
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01; the inverse of
    /// ``daysFromCivil(year:month:day:)``.
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let (era, dayOfEra) = floorDivision(days + 719_468, 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = era * 400 + yearOfEra + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Quotient rounded down and a remainder that is never negative.
    private static func floorDivision(_ value: Int, _ divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// ASCII bytes read from the front.
    private struct Reader {
        private let bytes: String.UTF8View
        private var index: String.UTF8View.Index

        init(_ bytes: String.UTF8View) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        var atEnd: Bool { index == bytes.endIndex }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index != bytes.endIndex, bytes[index] == UInt8(ascii: character) else { return false }
            bytes.formIndex(after: &index)
            return true
        }

        /// +1 or -1 for a sign at the front, which it skips.
        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }

        /// Exactly `count` decimal digits as a number.
        mutating func digits(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = nextDigit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        /// One or more digits after the point, in nanoseconds (digits past
        /// the ninth are read and dropped).
        mutating func fractionInNanoseconds() -> Int? {
            var value = 0
            var count = 0
            while let digit = nextDigit() {
                if count < 9 { value = value * 10 + digit }
                count += 1
            }
            guard count > 0 else { return nil }
            for _ in min(count, 9)..<9 { value *= 10 }
            return value
        }

        private mutating func nextDigit() -> Int? {
            guard index != bytes.endIndex else { return nil }
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            bytes.formIndex(after: &index)
            return Int(byte - UInt8(ascii: "0"))
        }
    }
}
