#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow userinfo`: the provider's userinfo for the stored profile.
struct UserInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "userinfo", abstract: "Show the signed-in user's userinfo claims.")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Flag(help: "Print JSON on stdout.")
    var json = false
    @Option(help: "Seconds the request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        do {
            let info = try await storeOption.kind().withStore(profile: profileOption.profile, logger: verboseOption.makeLogger) { store in
                let session = try await store.session(timeout: timeout, logger: verboseOption.makeLogger())
                let credentials = try await session.freshCredentials()
                // The subject the profile signed in as (a refresh keeps it).
                return try await session.client.userInfo(
                    accessToken: credentials.accessToken, tokenType: credentials.token.tokenType, expectedSubject: credentials.subject)
            }
            if json {
                Output.json(info.all)
            } else {
                for (name, value) in info.all.sorted(by: { $0.key < $1.key }) {
                    Output.stdout("\(TerminalText.field(name)): \(Summary.render(value))")
                }
            }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
#endif
