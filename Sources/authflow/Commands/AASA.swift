#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow aasa --app-id TEAMID.BUNDLE --path PATH`: the
/// apple-app-site-association file for https (universal link) callbacks.
struct AASA: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasa",
        abstract: "Print the apple-app-site-association file for https sign-in callbacks.",
        discussion: """
            Serve the output at https://HOST/.well-known/apple-app-site-association \
            (content type application/json, no redirects) on the host of the https \
            redirect URI, and add webcredentials:HOST and applinks:HOST to the app's \
            Associated Domains entitlement.
            """
    )

    @Option(name: .customLong("app-id"), help: "The app ID, TEAMID.bundle.identifier (repeatable).")
    var appIDs: [String] = []
    @Option(name: .customLong("path"), help: "The path of the https redirect URI, such as /oauth/callback (repeatable).")
    var paths: [String] = []

    func run() async throws {
        do {
            let file = try AppleAppSiteAssociation(appIDs: appIDs, paths: paths)
            Output.stdout(String(decoding: try file.json(), as: UTF8.self))
        } catch {
            throw Output.fail(error, json: false)
        }
    }
}
#endif
