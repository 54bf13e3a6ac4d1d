#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow credential git get|store|erase`: git's credential helper
/// protocol (gitcredentials(7)), configured as
/// `git config credential.helper '!authflow credential git --profile work'`.
///
/// - `get` answers `username` (the profile's `credential_username`, else
///   `oauth2`), `password` (a fresh access token) and `password_expiry_utc`,
///   for an https URL the profile serves (``CredentialProfiles``); anything
///   else gets an empty answer, so git asks its next helper.
/// - `erase` with the password the forge refused marks that token expired,
///   so the next `get` refreshes it (or signs in again when the refresh is refused).
/// - `store` is accepted and ignored: the profile is where the token lives.
/// - Other operations are ignored, as gitcredentials(7) asks.
///
/// A sign-in needed on `get` opens the browser (or the device flow), with
/// its instructions on stderr, unless `GIT_TERMINAL_PROMPT=0`: then the
/// helper fails at once with exit code 6.
struct GitCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "git", abstract: "git's credential helper: get, store, erase (gitcredentials(7)).",
        discussion: "Configure: git config --global credential.https://forge.example.com.helper '!authflow credential git --profile work'")

    @Argument(help: "The operation git asks for: get, store or erase.")
    var operation: String
    @OptionGroup var options: CredentialHelperOptions
    private var profile: String? { options.profile }
    private var timeout: Double { options.timeout }
    private var verboseOption: VerboseOption { options.verboseOption }

    func run() async throws {
        guard ["get", "store", "erase"].contains(operation) else { return }
        do {
            let message = try GitCredentialMessage.parse(
                try HelperInput.standardInput(
                    limit: GitCredentialMessage.maximumInputLength, what: "git credential input", untilBlankLine: true))
            switch operation {
            case "get": try await get(message)
            case "erase": try await erase(message)
            default: return
            }
        } catch {
            throw HelperFailure.report(error)
        }
    }

    private func get(_ message: GitCredentialMessage) async throws {
        guard let target = CredentialTarget(git: message), let profile = try CredentialProfiles.select(explicit: profile, for: target)
        else { return }
        let interactive = HelperInput.environment("GIT_TERMINAL_PROMPT") != "0"
        let source = HelperTokenSource(
            profileName: profile.name, interactive: interactive, nonInteractiveReason: "GIT_TERMINAL_PROMPT=0",
            timeout: timeout, logger: verboseOption.makeLogger())
        let token = try await source.token(.access)
        var answer = [("username", CredentialProfiles.username(of: profile)), ("password", token.value)]
        if let expiry = token.expiresAt { answer.append(("password_expiry_utc", String(Int(expiry.timeIntervalSince1970)))) }
        let text = try GitCredentialMessage(answer.map { (key: $0.0, value: $0.1) }).serialized()
        try StandardStream.output.write(text)
    }

    private func erase(_ message: GitCredentialMessage) async throws {
        guard let target = CredentialTarget(git: message), let password = message["password"],
            let profile = try CredentialProfiles.select(explicit: profile, for: target)
        else { return }
        try await RejectedToken.expire(password, profile: profile.name)
    }
}

/// A token a server refused: marked expired in the profile, so that the
/// next use refreshes it first.
enum RejectedToken {
    /// Marks the profile's access token expired when it is `token`
    /// (compared in constant time, under the profile's lock); any other
    /// token (already replaced, or never ours) is left alone.
    static func expire(_ token: String, profile name: String) async throws {
        try await ProfileStore(name: name).lock.withLock {
            guard var profile = try Profile.loadIfPresent(name), var credentials = profile.credentials,
                constantTimeEquals(credentials.accessToken, token)
            else { return }
            credentials.token.expiresAt = Date(timeIntervalSince1970: 0)
            profile.credentials = credentials
            try profile.save()
        }
    }
}

/// How a helper reports a failure: input it refuses is a usage error (exit
/// 2, its message on stderr); anything else as every command reports it
/// (``Output/fail(_:json:)``). Never on stdout, which is the protocol's.
enum HelperFailure {
    static func report(_ error: any Error) -> ExitCode {
        if let input = error as? CredentialInputError {
            Output.stderr("error: \(TerminalText.field(input.message))")
            return ExitCode(2)
        }
        return Output.fail(error, json: false)
    }
}
#endif
