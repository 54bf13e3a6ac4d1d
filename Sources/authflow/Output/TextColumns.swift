#if CLI // the CLI package trait
/// The few `printf` conversions the CLI's aligned output uses, with the
/// standard library alone, giving the same text as Foundation's
/// `String(format:)` and `padding(toLength:withPad:startingAt:)` did.
///
/// Those live in swift-corelibs-foundation on Linux: one use links all of
/// that library and ICU's data into the executable (docs/performance.md,
/// "Size"). A unit test compares each function with Foundation's output.
enum TextColumns {
    /// `%.Nf` with N `decimals` (0 to 3): `value` rounded as `printf` rounds
    /// it, by its exact binary value, a tie to the even digit (0.25 is
    /// `0.2`; 0.15, just below 0.15 in binary, is `0.1`). A negative value
    /// keeps its sign when it rounds to zero (`-0.0`), as in `printf`.
    static func fixed(_ value: Double, decimals: Int) -> String {
        precondition((0...3).contains(decimals), "TextColumns.fixed: 0 to 3 decimals")
        let sign = value.sign == .minus ? "-" : ""
        guard value.isFinite else { return sign + (value.isNaN ? "nan" : "inf") }
        let magnitude = value.magnitude
        let scale = [1, 10, 100, 1000][decimals] as UInt64
        // magnitude = significand × 2^exponent, both exact.
        let significand: UInt64 =
            magnitude.isNormal ? magnitude.significandBitPattern | (1 << 52) : magnitude.significandBitPattern
        let exponent = magnitude.isNormal ? Int(magnitude.exponent) - 52 : -1074
        guard exponent < 0 else {
            // At least 2^52: a whole number, printed in full.
            return sign + Self.digits(significand, timesTwoToThe: exponent) + (decimals > 0 ? "." + zeros(decimals) : "")
        }
        // significand × scale < 2^53 × 1000 < 2^63: the value times `scale`,
        // exactly, over 2^shift; its quotient rounded half to even. From a
        // shift of 64, scaled < 2^63 ≤ half of 2^shift: it rounds to 0.
        let scaled = significand * scale
        let shift = -exponent
        var rounded: UInt64 = 0
        if shift < 64 {
            rounded = scaled >> shift
            let remainder = scaled & ((1 << shift) - 1)
            let half: UInt64 = 1 << (shift - 1)
            if remainder > half || (remainder == half && rounded & 1 == 1) { rounded += 1 }
        }
        let whole = String(rounded / scale)
        guard decimals > 0 else { return sign + whole }
        return sign + whole + "." + zeroPadded(Int(rounded % scale), width: decimals)
    }

    /// `%0Nd`: `value` in decimal, zeros after the sign up to `width` characters.
    static func zeroPadded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let sign = value < 0 ? "-" : ""
        return sign + zeros(width - sign.count - digits.count) + digits
    }

    /// `text` right-aligned in `width` characters: spaces before it when
    /// shorter (`%Ns` for the ASCII text the CLI aligns), unchanged when not.
    static func right(_ text: String, width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// `text` as a column `width` UTF-16 units wide: spaces after it when
    /// shorter, its first `width` units when longer. Foundation's
    /// `padding(toLength: width, withPad: " ", startingAt: 0)`, which counts
    /// UTF-16 units (a surrogate pair cut in two becomes U+FFFD, as when
    /// Foundation's result became a Swift string).
    static func left(_ text: String, width: Int) -> String {
        let length = text.utf16.count
        if length < width { return text + String(repeating: " ", count: width - length) }
        if length == width { return text }
        return String(decoding: Array(text.utf16.prefix(width)), as: UTF16.self)
    }

    private static func zeros(_ count: Int) -> String {
        String(repeating: "0", count: max(0, count))
    }

    /// The decimal digits of significand × 2^exponent (exponent ≥ 0), by
    /// long division of a little-endian number in 32-bit limbs.
    private static func digits(_ significand: UInt64, timesTwoToThe exponent: Int) -> String {
        // Whole limbs of zeros below, then the significand shifted by the rest (at most 53 + 31 bits).
        let shift = UInt64(exponent % 32)
        let low = significand << shift
        let high = shift == 0 ? 0 : significand >> (64 - shift)
        var limbs = [UInt32](repeating: 0, count: exponent / 32)
        limbs += [UInt32(truncatingIfNeeded: low), UInt32(truncatingIfNeeded: low >> 32), UInt32(truncatingIfNeeded: high)]
        var reversed: [UInt8] = []
        repeat {
            var remainder: UInt64 = 0
            for index in limbs.indices.reversed() {
                let part = (remainder << 32) | UInt64(limbs[index])
                limbs[index] = UInt32(truncatingIfNeeded: part / 10)
                remainder = part % 10
            }
            reversed.append(UInt8(ascii: "0") + UInt8(remainder))
        } while limbs.contains { $0 != 0 }
        return String(decoding: reversed.reversed(), as: UTF8.self)
    }
}
#endif
