import AuthFlow
import ArgumentParser
import AuthFlowLoopback
import Foundation

/// `authflow token`: a fresh access token on stdout, for scripts. Refreshes
/// when the stored one expires within a minute; parallel invocations refresh
/// once (the profile is locked around the refresh and re-read after waiting).
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a fresh access token (refreshing when needed).")

    @OptionGroup var profileOption: ProfileOption
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        do {
            let profile = try Profile.load(profileOption.profile)
            if profile.credentials.token.tokenType == "DPoP" {
                throw AuthFlowError(.configuration, "profile \(profile.name) holds a DPoP-bound token, which is useless without a proof from its key",
                                    recovery: "use `authflow request [-X METHOD] URL` to send an authorized request with a fresh proof")
            }
            let session = try profile.session(timeout: timeout, logger: verboseOption.makeLogger())
            Output.stdout(try await session.freshAccessToken())
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}

/// `authflow logout`: revoke (refresh token, then access token), open the
/// provider's end-session page when it has one, and delete the profile.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke the tokens, end the provider session and forget the profile.")

    @OptionGroup var profileOption: ProfileOption
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @Flag(help: "Do not open the end-session page; only print it.")
    var noBrowser = false
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        do {
            let profile = try Profile.load(profileOption.profile)
            let session = try profile.session(timeout: timeout, logger: verboseOption.makeLogger())
            let client = session.client
            let endSession = try await session.signOut()
            Output.stderr(client.metadata.revocationEndpoint == nil
                ? "Profile \(profile.name) deleted (the provider has no revocation endpoint)."
                : "Tokens revoked; profile \(profile.name) deleted.")
            if let endSession {
                Output.stderr("End the provider session at:\n\(endSession.absoluteString)")
                if !noBrowser {
                    do { try SystemBrowser.open(endSession) } catch { Output.stderr("warning: \(error)") }
                }
            }
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
