import AuthFlow
import ArgumentParser
import Foundation

/// `authflow token`: the stored access token on stdout, for scripts.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the profile's access token.")

    @OptionGroup var profileOption: ProfileOption

    func run() async throws {
        do {
            let profile = try Profile.load(profileOption.profile)
            if let expiry = profile.credentials.expiresAt, expiry <= Date() {
                throw AuthFlowError(.reauthenticationRequired, "the access token of profile \(profile.name) has expired; run authflow login again")
            }
            Output.stdout(profile.credentials.accessToken)
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}

/// `authflow status`: what the profile holds, without secrets.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the profile's sign-in state.")

    @OptionGroup var profileOption: ProfileOption
    @Flag(help: "Print JSON on stdout.")
    var json = false

    func run() async throws {
        do {
            let summary = Summary(profile: try Profile.load(profileOption.profile), showTokens: false, includeExpired: true)
            if json { Output.json(summary) } else { summary.printHuman(path: nil) }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
