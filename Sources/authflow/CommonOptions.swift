#if CLI // the CLI package trait
import ArgumentParser
import Logging
import Foundation

/// `--profile`.
struct ProfileOption: ParsableArguments {
    @Option(help: "The profile to use.")
    var profile: String = "default"
}

/// `-v/--verbose`: debug logging on stderr. Nothing secret is ever logged.
struct VerboseOption: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Log each step on stderr (never tokens, codes or secrets).")
    var verbose = false

    func makeLogger() -> Logger {
        var logger = Logger(label: "authflow") { label in EscapingLogHandler(StreamLogHandler.standardError(label: label)) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }
}
#endif
