#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow credential docker get|store|erase|list|version`, and the same as
/// `docker-credential-authflow` (``InvokedAs``): Docker's credential helper
/// protocol. `get` answers the profile that serves the registry
/// (``CredentialProfiles``) with its username and a fresh access token;
/// `store` and `erase` are accepted and ignored (the profile keeps the
/// token; `authflow logout` ends it); `list` names the URLs the profiles serve.
struct DockerCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docker", abstract: "Docker's credential helper: get, store, erase, list (also as docker-credential-authflow).",
        discussion: "Configure in ~/.docker/config.json: \"credHelpers\": {\"registry.example.com\": \"authflow\"}")

    @Argument(help: "The operation Docker asks for: get, store, erase, list or version.")
    var operation: String
    @OptionGroup var options: CredentialHelperOptions
    private var profile: String? { options.profile }
    private var timeout: Double { options.timeout }
    private var verboseOption: VerboseOption { options.verboseOption }

    /// What `version` prints, as the reference helpers do.
    static var versionLine: String { "docker-credential-authflow (authflow) \(Authflow.version)" }
    static let usage = "Usage: docker-credential-authflow <store|get|erase|list|version>"

    func run() async throws {
        do {
            try await answer()
        } catch let code as ExitCode {
            throw code
        } catch {
            // Docker shows stdout's line; stderr gets the whole error and its hint.
            let line = (error as? CredentialInputError)?.message ?? (error as? AuthFlowError)?.message ?? "\(error)"
            try? StandardStream.output.write(TerminalText.field(line) + "\n")
            throw HelperFailure.report(error)
        }
    }

    private func answer() async throws {
        switch operation {
        case "get": try await get()
        case "store":
            _ = try DockerCredentialMessage.storeRequest(
                try HelperInput.standardInput(limit: DockerCredentialMessage.maximumStoreLength, what: "docker credential input"))
        case "erase":
            _ = try DockerCredentialMessage.serverURL(
                try HelperInput.standardInput(limit: DockerCredentialMessage.maximumServerURLLength, what: "docker credential input"))
        case "list": try StandardStream.output.write(DockerCredentialMessage.list(try listed()))
        case "version": Output.stdout(Self.versionLine)
        default: throw CredentialInputError("Unknown credential action `\(String(operation.prefix(100)))`; \(Self.usage)")
        }
    }

    private func get() async throws {
        let serverURL = try DockerCredentialMessage.serverURL(
            try HelperInput.standardInput(limit: DockerCredentialMessage.maximumServerURLLength, what: "docker credential input"))
        guard let target = CredentialTarget(url: serverURL), target.scheme == "https" || target.isLoopback,
            let profile = try CredentialProfiles.select(explicit: profile, for: target)
        else {
            try StandardStream.output.write(DockerCredentialMessage.notFound + "\n")
            throw ExitCode(1)
        }
        let source = HelperTokenSource(
            profileName: profile.name, interactive: true, nonInteractiveReason: "",
            timeout: timeout, logger: verboseOption.makeLogger())
        let token = try await source.token(.access)
        let answer = DockerCredentialMessage.credentials(
            serverURL: serverURL, username: CredentialProfiles.username(of: profile), secret: token.value)
        try StandardStream.output.write(answer + Data("\n".utf8))
    }

    /// Every URL a signed-in profile serves, with its username.
    private func listed() throws -> [String: String] {
        var entries: [String: String] = [:]
        for name in profile.map({ [$0] }) ?? CredentialProfiles.names() {
            guard let profile = try? Profile.loadIfPresent(name), profile.credentials != nil else { continue }
            for url in profile.credentialURLs ?? [] { entries[url] = CredentialProfiles.username(of: profile) }
        }
        return entries
    }
}
#endif
