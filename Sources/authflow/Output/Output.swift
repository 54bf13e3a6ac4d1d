#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Printing and exit codes: the CLI contract of DESIGN.md.
enum Output {
    // A failed write (a closed pipe: `authflow demo | head`) is ignored:
    // it must not crash the program.
    // Every line goes through `TerminalText.escaped`: what a server sent
    // (error descriptions, response parameters, userinfo, discovery values)
    // never reaches the terminal as a control sequence. Only `raw` writes
    // bytes unchanged (a response body, as curl does).
    static func stderr(_ text: String) {
        try? StandardStream.error.write(TerminalText.escaped(text) + "\n")
    }

    static func stdout(_ text: String) {
        try? StandardStream.output.write(TerminalText.escaped(text) + "\n")
    }

    /// Bytes on stdout unchanged: the body of `authflow request`, which is
    /// the caller's data, not text for the terminal.
    static func raw(_ data: Data) {
        try? StandardStream.output.write(data)
    }

    /// One JSON value on stdout, keys sorted. JSONEncoder escapes the C0
    /// controls; ``stdout(_:)`` escapes DEL, C1 and the rest as `\uXXXX`,
    /// which is valid JSON for the same characters.
    static func json(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        guard let data = try? encoder.encode(value) else { return }
        stdout(String(decoding: data, as: UTF8.self))
    }

    /// The exit code for an error category: 3 the server refused, 4 a
    /// security check failed, 5 network failure or timeout, 6 not signed in
    /// or the session ended (sign in again), 1 everything else (including
    /// categories added later).
    static func exitCode(for category: AuthFlowError.Category) -> Int32 {
        switch category {
        case .oauthError: 3
        case .stateMismatch, .issuerMismatch, .idTokenInvalid, .userinfoSubjectMismatch, .jwtInvalid: 4
        case .network, .timeout: 5
        case .reauthenticationRequired: 6
        default: 1
        }
    }

    /// The `category` of a usage error (exit 2) in the JSON error object: a
    /// flag that is wrong, missing, or does not apply (found while parsing
    /// or at run time, like `--tenant` on an issuer that is not a template).
    static let usageCategory = "usage"

    /// Whether the command line asks for JSON output: `--json` among the
    /// options (before a `--` that ends them). Read from the raw arguments,
    /// so that it holds for a command line that did not parse.
    static func asksForJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    /// Reports `error` (a line on stderr, or the error object on stdout with
    /// `--json`) and returns the exit code to throw: 2 for a usage error
    /// found at run time, else the category's code.
    static func fail(_ error: any Error, json: Bool) -> ExitCode {
        if let usage = error as? ValidationError {
            if json { self.json(ErrorEnvelope(usage: usage.message)) }
            stderr("error: \(TerminalText.field(usage.message))")
            return ExitCode(2)
        }
        let failure = error as? AuthFlowError ?? AuthFlowError(.configuration, "\(type(of: error))")
        if json {
            self.json(ErrorEnvelope(error: .init(failure)))
        } else {
            // One line each, whatever the server put in its description.
            stderr("error: \(TerminalText.field(failure.description))")
            if let hint = failure.commandLineHint { stderr("hint: \(TerminalText.field(hint))") }
        }
        return ExitCode(exitCode(for: failure.category))
    }

    struct ErrorEnvelope: Encodable {
        struct Body: Encodable {
            let category: String
            let reason: String?
            let oauthError: String?
            let description: String
            let errorURI: String?

            /// A usage error: the message says which flag, and what to do.
            init(usage message: String) {
                category = Output.usageCategory
                reason = nil
                oauthError = nil
                description = message
                errorURI = nil
            }

            init(_ error: AuthFlowError) {
                category = error.category.rawValue
                reason = error.reason?.rawValue
                oauthError = error.oauth?.error
                description = error.oauth?.errorDescription ?? error.message
                errorURI = error.oauth?.errorURI
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(category, forKey: .category)
                try container.encode(reason, forKey: .reason)
                try container.encode(oauthError, forKey: .oauthError)
                try container.encode(description, forKey: .description)
                try container.encodeIfPresent(errorURI, forKey: .errorURI)
            }

            enum CodingKeys: String, CodingKey {
                case category, reason, description
                case oauthError = "oauth_error"
                case errorURI = "error_uri"
            }
        }

        let error: Body

        init(error: Body) { self.error = error }

        /// The object for a usage error (exit 2).
        init(usage message: String) { error = Body(usage: message) }
    }
}
#endif
