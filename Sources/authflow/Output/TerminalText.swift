#if CLI // the CLI package trait
/// Text from a server made safe for a terminal: the one escaping function
/// that every line the CLI prints goes through (``Output``).
///
/// A server chooses error descriptions, extra response parameters, the
/// callback's `iss`, userinfo and discovery values; printed raw, an escape
/// sequence in them retitles the terminal, clears the screen or rewrites
/// what was printed before. Escaped here, each as `\uXXXX`: the C0 controls
/// (except line feed and tab, which the CLI's own layout uses), DEL, the C1
/// controls (U+0080–U+009F; U+009B is a one-byte CSI), and the characters
/// that reorder or split displayed text (bidirectional controls, line and
/// paragraph separators). `\uXXXX` is also a JSON escape of the same
/// character, so JSON output stays valid JSON and decodes to the server's
/// text unchanged.
enum TerminalText {
    static func escaped(_ text: String) -> String { escaped(text, keepingLines: true) }

    /// One value a server chose, shown inside a line of the CLI's own
    /// (`name: value`): line feeds and tabs escaped too, so the value cannot
    /// fake a line of output.
    static func field(_ text: String) -> String { escaped(text, keepingLines: false) }

    private static func escaped(_ text: String, keepingLines: Bool) -> String {
        func escapes(_ scalar: Unicode.Scalar) -> Bool {
            needsEscape(scalar) || (!keepingLines && (scalar == "\n" || scalar == "\t"))
        }
        guard text.unicodeScalars.contains(where: escapes) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if escapes(scalar) {
                result += escape(scalar)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
#endif
