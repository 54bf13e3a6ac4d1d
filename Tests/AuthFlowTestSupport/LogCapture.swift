import Foundation
package import Logging

/// Keeps every log line a logger writes, in memory, for tests that check
/// what a log holds (and what it must never hold).
///
/// One line per event: `LEVEL LABEL: MESSAGE key=value… error=ERROR`, the
/// metadata (the logger's and the event's) sorted by key.
package final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var captured: [String] = []

    package init() {}

    /// The lines so far.
    package var lines: [String] {
        lock.lock()
        defer { lock.unlock() }
        return captured
    }

    /// The lines so far, one per line.
    package var text: String { lines.joined(separator: "\n") }

    /// A logger at `.trace` whose lines this capture keeps.
    package func logger(label: String = "test") -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }

    private func append(_ line: String) {
        lock.lock()
        captured.append(line)
        lock.unlock()
    }

    private struct Handler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var line = "\(event.level) \(label): \(event.message)"
            for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }).sorted(by: { $0.key < $1.key }) {
                line += " \(key)=\(value)"
            }
            if let error = event.error { line += " error=\(error)" }
            capture.append(line)
        }
    }
}
