import AuthFlow
import ArgumentParser
import Foundation

/// `authflow userinfo`: the provider's userinfo for the stored profile.
struct UserInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "userinfo", abstract: "Show the signed-in user's userinfo claims.")

    @OptionGroup var profileOption: ProfileOption
    @Flag(help: "Print JSON on stdout.")
    var json = false
    @Option(help: "Seconds the request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        do {
            let profile = try Profile.load(profileOption.profile)
            guard let issuer = profile.issuer, let url = URL(string: issuer) else {
                throw AuthFlowError(.configuration, "profile \(profile.name) was signed in without an issuer; userinfo needs discovery")
            }
            if let expiry = profile.credentials.expiresAt, expiry <= Date() {
                throw AuthFlowError(.reauthenticationRequired, "the access token of profile \(profile.name) has expired; run authflow login again")
            }
            let client = try await OAuthClient(issuer: url, clientID: profile.credentials.clientID, timeout: timeout,
                                               logger: verboseOption.makeLogger())
            let info = try await client.userInfo(accessToken: profile.credentials.accessToken, expectedSubject: profile.credentials.subject)
            if json {
                Output.json(info.all)
            } else {
                for (name, value) in info.all.sorted(by: { $0.key < $1.key }) { Output.stdout("\(name): \(Summary.render(value))") }
            }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
