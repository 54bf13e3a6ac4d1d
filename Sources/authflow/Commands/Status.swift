#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
import Foundation

/// `authflow status`: what the profile holds, without secrets.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the profile's sign-in state.")

    @OptionGroup var profileOption: ProfileOption
    @Flag(help: "Print JSON on stdout.")
    var json = false

    func run() async throws {
        do {
            let profile = try Profile.load(profileOption.profile)
            let summary = Summary(profile: profile, credentials: try profile.signedInCredentials(), showTokens: false, includeExpired: true)
            if json { Output.json(summary) } else { summary.printHuman(path: nil) }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
#endif
