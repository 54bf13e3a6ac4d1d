#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
        try? StandardStream.error.write("\r\u{1B}[K\(TerminalText.escaped(text))")
    }

    /// Ends the line, when one was shown.
    func finish() {
        guard live, shown.withLock({ $0 }) else { return }
        try? StandardStream.error.write("\n")
    }
}
#endif
