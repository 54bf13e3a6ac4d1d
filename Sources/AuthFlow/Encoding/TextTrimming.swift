/// Trimming by Unicode scalar, with the standard library alone.
///
/// The engine reads header values, environment variables and configuration
/// with these rather than Foundation's `trimmingCharacters(in:)`, which on
/// Linux lives in swift-corelibs-foundation: using it links all of that
/// library and ICU's data into every program built on the engine
/// (docs/performance.md, "Size"). The sets are Foundation's:
/// `CharacterSet.whitespaces` and `.whitespacesAndNewlines` (a unit test
/// compares them over every scalar).
extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: a horizontal tab,
    /// any space separator (Unicode category Zs), and the zero width space
    /// (U+200B, a space separator in Unicode's early versions, which
    /// Foundation's set keeps).
    package func trimmingWhitespace() -> String {
        trimmingScalars(where: Self.isWhitespace)
    }

    /// The text without leading and trailing whitespace or line breaks: the
    /// scalars of ``trimmingWhitespace()``, line feed, vertical tab, form
    /// feed, carriage return, next line (U+0085) and the line and paragraph
    /// separators.
    package func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { Self.isWhitespace($0) || Self.isNewline($0) }
    }

    /// The text without the leading and trailing scalars that `trimmed` accepts.
    package func trimmingScalars(where trimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !trimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !trimmed($0) })!
        return String(scalars[first...last])
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
