#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow status`: what the profile holds, without secrets.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the profile's sign-in state.")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Flag(help: "Print JSON on stdout.")
    var json = false
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        do {
            let summary = try await storeOption.kind().withStore(profile: profileOption.profile, logger: verboseOption.makeLogger) {
                try await $0.status(now: Date())
            }
            if json { Output.json(summary) } else { summary.printHuman(path: nil) }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
#endif
