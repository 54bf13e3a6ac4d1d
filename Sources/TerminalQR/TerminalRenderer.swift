/// Draws a ``QRCode`` in a terminal with Unicode half blocks: one character
/// cell holds two modules, one above the other, so the code keeps its
/// square shape in a normal font.
///
/// Most terminals draw light text on a dark background, so by default the
/// *light* modules (and the quiet zone) are drawn as blocks and dark modules
/// are left as background. Use `inverted: true` for dark-on-light terminals.
package struct TerminalRenderer: Sendable {
    /// Light modules around the symbol (the standard asks for 4).
    package var quietZone: Int
    /// Draw dark modules as blocks instead of light ones.
    package var inverted: Bool

    /// Creates a renderer.
    package init(quietZone: Int = 4, inverted: Bool = false) {
        self.quietZone = max(0, quietZone)
        self.inverted = inverted
    }

    /// The code as lines of text (no trailing newline).
    package func render(_ code: QRCode) -> String {
        let range = -quietZone..<(code.size + quietZone)
        var lines: [String] = []
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for x in range {
                let upper = inked(code, x, top)
                let lower = top + 1 < range.upperBound ? inked(code, x, top + 1) : false
                switch (upper, lower) {
                case (true, true): line.append("\u{2588}") // █
                case (true, false): line.append("\u{2580}") // ▀
                case (false, true): line.append("\u{2584}") // ▄
                case (false, false): line.append(" ")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private func inked(_ code: QRCode, _ x: Int, _ y: Int) -> Bool {
        code[x, y] == inverted
    }
}
