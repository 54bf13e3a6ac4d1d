#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The dates `authflow` writes to a profile: `YYYY-MM-DDTHH:MM:SS`, an
/// optional fraction of a second, then `Z`, `±HH:MM` or nothing (UTC).
/// Parsed by hand, without a date formatter, since this runs on every
/// `authflow token`. Anything else is not read here; the full profile reader
/// also accepts other ISO 8601 forms.
enum StoredDate {
    /// The date `text` names, or nil when it is not in the form above.
    static func parse(_ text: String) -> Date? {
        var scanner = Scanner(bytes: Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
              let day = scanner.digits(2), scanner.skip("T"), let hour = scanner.digits(2), scanner.skip(":"),
              let minute = scanner.digits(2), scanner.skip(":"), let second = scanner.digits(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
              // Earlier dates are written in the Julian calendar: left to authflow-core.
              year >= 1583 else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            guard let value = scanner.fraction() else { return nil }
            fraction = value
        }
        var offset = 0
        if scanner.skip("+") || scanner.peek("-") {
            let sign = scanner.skip("-") ? -1 : 1
            guard let hours = scanner.digits(2), scanner.skip(":"), let minutes = scanner.digits(2) else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            _ = scanner.skip("Z")
        }
        guard scanner.atEnd else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
    /// (the era-based method of Howard Hinnant's `days_from_civil`).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        func peek(_ character: Unicode.Scalar) -> Bool { index < bytes.count && bytes[index] == UInt8(ascii: character) }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard peek(character) else { return false }
            index += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard let digit = Self.digit(byte) else { return nil }
                value = value * 10 + digit
            }
            index += count
            return value
        }

        /// One or more digits after the point, as a fraction of a second.
        mutating func fraction() -> Double? {
            var value = 0.0, scale = 0.1, any = false
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                value += Double(digit) * scale
                scale /= 10
                index += 1
                any = true
            }
            return any ? value : nil
        }

        static func digit(_ byte: UInt8) -> Int? {
            byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
        }
    }
}
