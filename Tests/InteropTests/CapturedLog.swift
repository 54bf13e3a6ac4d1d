import Foundation
import Logging

/// A swift-log handler that keeps every line, with its metadata, in memory.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return lines.joined(separator: "\n")
    }

    func logger() -> Logger {
        var logger = Logger(label: "interop") { label in Handler(label: label, sink: self) }
        logger.logLevel = .trace
        return logger
    }

    struct Handler: LogHandler {
        let label: String
        let sink: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let error = event.error.map { " error=\($0)" } ?? ""
            sink.append("\(event.level) \(label): \(event.message) \(all.map { "\($0)=\($1)" }.sorted().joined(separator: " "))\(error)")
        }
    }
}
