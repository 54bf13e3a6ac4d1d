#if CLI // the CLI package trait
import AuthFlow
import Foundation

/// One line on stderr rewritten in place while something waits, on a
/// terminal only: where stderr is a file or a pipe nothing is written, so
/// logs don't fill with progress.
final class ProgressLine: Sendable {
    private let live = isatty(STDERR_FILENO) == 1
    private let shown = LockedValue(false)

    /// Replaces the line with `text`.
    func show(_ text: String) {
        guard live else { return }
        shown.withLock { $0 = true }
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K\(TerminalText.escaped(text))".utf8))
    }

    /// Ends the line, when one was shown.
    func finish() {
        guard live, shown.withLock({ $0 }) else { return }
        try? FileHandle.standardError.write(contentsOf: Data("\n".utf8))
    }
}
#endif
