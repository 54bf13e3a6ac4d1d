#if CLI // the CLI package trait
import Logging

/// `--verbose` logging with ``TerminalText`` escaping: a log line may quote
/// what a server sent, and it reaches the terminal like any other output.
struct EscapingLogHandler: LogHandler {
    private var inner: any LogHandler

    init(_ inner: any LogHandler) { self.inner = inner }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var escaped = event
        escaped.message = "\(TerminalText.escaped(event.message.description))"
        escaped.metadata = event.metadata?.mapValues { .string(TerminalText.escaped("\($0)")) }
        inner.log(event: escaped)
    }
}
#endif
