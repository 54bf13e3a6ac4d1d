#if CLI // the CLI package trait
import ArgumentParser
import Logging
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--profile`; without it, `AUTHFLOW_PROFILE`; without either, `default`,
/// or for a command given a URL, the profile whose URLs serve it. Nothing
/// stores an "active" profile: each command and each shell says its own.
struct ProfileOption: ParsableArguments {
    @Option(
        name: .customLong("profile"),
        help: "The profile to use (default: $AUTHFLOW_PROFILE, else the profile whose URLs serve the command's URL, else default).")
    var explicitProfile: String?

    /// The profile named by `--profile`, else by `AUTHFLOW_PROFILE`, else `default`.
    var profile: String { explicitProfile ?? Self.environmentProfile ?? "default" }

    /// The profile for a request to `url`: `--profile`, else `AUTHFLOW_PROFILE`,
    /// else the profile whose credential URLs serve `url` (the credential
    /// helpers' rule: the most specific wins, two equal claims are an error),
    /// else `default`.
    func profile(for url: String) throws -> String {
        if let name = explicitProfile ?? Self.environmentProfile { return name }
        if let target = CredentialTarget(url: url), let chosen = try CredentialProfiles.select(explicit: nil, for: target) {
            return chosen.name
        }
        return "default"
    }

    /// `AUTHFLOW_PROFILE`, when set and not empty.
    static var environmentProfile: String? {
        guard let name = ProcessInfo.processInfo.environment["AUTHFLOW_PROFILE"], !name.isEmpty else { return nil }
        return name
    }
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
