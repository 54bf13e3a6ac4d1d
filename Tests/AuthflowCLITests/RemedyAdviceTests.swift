#if CLI
import AuthFlow
import AuthFlowTestSupport
import AuthFlowLoopback
import Foundation
import Testing
@testable import authflow

/// The command line says each library remedy as its flags: the library's
/// own recovery speaks in API terms, and `hint:` (and a usage error) show
/// the flag advice instead.
@Suite("Remedy advice")
struct RemedyAdviceTests {
    /// Each remedy the library throws with, and a flag its advice must name.
    static let flags: [(AuthFlowError.Remedy, String)] = [
        (.usePushedAuthorizationRequests, "run authflow login again with --par."),
        (.signInWithoutPushedAuthorizationRequests, "--par"),
        (.requestOfflineAccess, "--param access_type=offline --param prompt=consent"),
        (.passScopesSeparately, "--scope"),
        (.allowMoreTime, "--timeout"),
        (.giveTheIssuerURL, "--issuer"),
        (.checkTheIssuer, "--authorization-endpoint and --token-endpoint"),
        (.useIssuer.with("https://id.example/"), "--issuer https://id.example/"),
        (.giveAnAccount, "--account as user@host"),
        (.giveTheIssuerInstead, "give --issuer instead of --account"),
        (.chooseTenants, "--tenant any, or --tenant ID[,ID]"),
        (.fixTheTenantList, "--tenant any, or tenant IDs separated by commas"),
        (.allowTenant.with("tenant-1"), "Add tenant-1 to --tenant"),
        (.giveTheClientID, "--client-id"),
        (.giveTheUserInfoEndpoint, "--userinfo-endpoint URL"),
        (.giveASupportedPrivateKey, "--private-key"),
        (.giveAnAppID, "--app-id"),
        (.giveACallbackPath, "--path"),
        (.chooseAnotherPort, "--port"),
        (.chooseAnUnprivilegedPort, "--port"),
    ]

    @Test("each remedy's advice names its flag", arguments: flags.map { $0 })
    func adviceNamesTheFlag(_ remedy: AuthFlowError.Remedy, _ flag: String) throws {
        let advice = try #require(remedy.commandLineAdvice)
        #expect(advice.contains(flag), "\(remedy): \(advice)")
        let error = AuthFlowError(.configuration, "x", recovery: "In API terms.", remedy: remedy)
        #expect(error.commandLineHint == advice && error.commandLineRecovery == advice)
    }

    @Test func aValuedRemedyWithoutItsValueHasNoAdvice() {
        #expect(AuthFlowError.Remedy.useIssuer.commandLineAdvice == nil)
        #expect(AuthFlowError.Remedy.allowTenant.commandLineAdvice == nil)
    }

    @Test func withoutFlagAdviceTheRecoveryOrTheCategoryAdviceIsTheHint() {
        let again = AuthFlowError(.reauthenticationRequired, "ended", recovery: "Sign in again.", remedy: .signInAgain)
        #expect(again.commandLineHint == "Sign in again.")
        let unknown = AuthFlowError(.configuration, "x", recovery: "Do this.", remedy: .init(name: "an_app_s_own"))
        #expect(unknown.commandLineHint == "Do this.")
        let plain = AuthFlowError(.network, "down")
        #expect(plain.commandLineRecovery == nil && plain.commandLineHint == plain.recoverySuggestion)
    }

    /// The library's errors, as thrown: the recovery names no flag, the command line's hint does.
    @Test func theEnginesErrorsGetTheFlagAdvice() async throws {
        func hint(_ body: () throws -> Void) -> String? {
            do {
                try body()
            } catch let error as AuthFlowError {
                #expect(error.recovery?.contains("--") == false, "\(error)")
                return error.commandLineHint
            } catch {
                Issue.record("\(error)")
            }
            return nil
        }
        #expect(hint { _ = try IssuerTenants(parsing: "a/b") }?.contains("--tenant any, or tenant IDs separated by commas") == true)
        #expect(hint { _ = try AppleAppSiteAssociation(appIDs: [], paths: ["/cb"]) } == "Pass --app-id TEAMID.bundle.identifier.")
        #expect(
            hint {
                _ = try OAuthClient(
                    metadata: ProviderMetadata(
                        issuer: "https://id.example", authorizationEndpoint: URL(string: "https://id.example/a")!,
                        tokenEndpoint: URL(string: "https://id.example/t")!),
                    clientID: "")
            } == "Give the client ID the provider registered for this app (--client-id).")
        let first = try await LoopbackListener.start()
        defer { Task { await first.close() } }
        do {
            _ = try await LoopbackListener.start(port: first.port)
            Issue.record("the port was bound twice")
        } catch let error as AuthFlowError {
            #expect(error.recovery?.contains("--") == false)
            #expect(error.commandLineHint?.hasPrefix("Choose another port with --port") == true)
        }
    }
}
#endif
