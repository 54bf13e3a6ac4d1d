#if CLI // the CLI package trait
import ArgumentParser
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

/// The `authflow` command: sign in from a terminal, print tokens for scripts.
@main
struct Authflow: AsyncParsableCommand {
    /// The release `authflow --version` prints; CHANGELOG.md lists what each holds.
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "authflow",
        abstract: "OAuth 2.0 and OpenID Connect sign-in from the terminal.",
        discussion: """
            Exit codes: 0 success, 1 other failure, 2 usage, 3 the server refused, \
            4 a security check failed, 5 network failure or timeout, \
            6 not signed in or the session ended (sign in again).
            """,
        version: Authflow.version,
        subcommands: [
            Login.self, Token.self, Exchange.self, Request.self, UserInfoCommand.self, Logout.self, Status.self, Discover.self, Decode.self,
            Demo.self, ProviderCommand.self, AASA.self, CredentialCommand.self,
        ]
    )

    /// Runs the command, mapping every usage error to exit code 2
    /// (ArgumentParser's default is 64).
    static func main() async {
        let arguments = InvokedAs.arguments(argv0: CommandLine.arguments.first ?? "", Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try parseCommand(arguments)
            // `token` is run without a conformance lookup: the first cast to a
            // protocol existential scans every conformance record of the executable.
            if let token = command as? Token {
                try await token.run()
            } else if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            terminate(code.rawValue)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                print(message)
                terminate(0)
            }
            // A script that asked for JSON reads stdout: a usage error is an error object there too.
            if Output.asksForJSON(arguments) { Output.json(Output.ErrorEnvelope(usage: self.message(for: error))) }
            try? StandardStream.error.write(message + "\n")
            terminate(2)
        }
    }

    /// The command `arguments` name. `authflow token`, the command scripts
    /// run most, is read without ArgumentParser in its common forms
    /// (``Token/commonForm(_:)``), else parsed by its own command alone,
    /// without building the whole command tree; anything it does not accept
    /// (help included) is parsed from the root, which reports it as for any
    /// other command.
    static func parseCommand(_ arguments: [String]) throws -> any ParsableCommand {
        if arguments.first == Token.configuration.commandName {
            let rest = Array(arguments.dropFirst())
            if let token = Token.commonForm(rest) ?? (try? Token.parse(rest)) { return token }
        }
        return try parseAsRoot(arguments)
    }
}

/// Ends the process with `status`: the C library's `exit`, which
/// `ParsableCommand.exit(withError:)` hides inside ``Authflow``.
private func terminate(_ status: Int32) -> Never {
    exit(status)
}
#endif
