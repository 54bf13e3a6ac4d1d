#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
import AuthFlowLoopback
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow logout`: revoke (refresh token, then access token), end the
/// provider's session when it has an end-session endpoint, and forget the
/// credentials; the settings stay for the next `authflow login`, unless
/// `--forget`. The end-session flow is in `EndProviderSession.swift`.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Revoke the tokens, end the provider session and forget the credentials.",
        discussion: "The profile's settings stay, so 'authflow login' signs in again without flags; --forget deletes the whole profile.")

    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @Option(
        help: ArgumentHelp(
            "Seconds to wait for the provider to redirect back once the browser has the end-session page.",
            discussion: "Many providers never redirect back; the sign-out here is done before this wait."))
    var browserTimeout: Double = EndProviderSession.defaultConfirmationTimeout
    @Flag(help: "Delete the whole profile (settings too), not only the credentials.")
    var forget = false
    @Flag(help: "Do not open the end-session page; only print it.")
    var noBrowser = false
    @Flag(help: "Show the ID token (id_token_hint) in the printed end-session URL.")
    var showTokens = false
    @Flag(help: "Print the result as JSON on stdout.")
    var json = false
    @OptionGroup var verboseOption: VerboseOption

    func validate() throws {
        guard timeout > 0, browserTimeout > 0 else { throw ValidationError("timeouts must be positive") }
    }

    func run() async throws {
        do {
            try await signOut()
        } catch {
            throw Output.fail(error, json: json)
        }
    }

    private func signOut() async throws {
        let name = profileOption.profile
        let logger = verboseOption.makeLogger()
        let madeLogger = { logger }
        try await storeOption.kind().withStore(profile: name, logger: madeLogger) { store in
            guard let stored = try await store.storedSession(timeout: timeout, logger: logger) else {
                if forget { try store.forgetProfile() }
                if json {
                    Output.json(
                        LogoutReport(profile: name, signedIn: false, revoked: false, profileDeleted: forget, endSession: .notSignedIn))
                } else {
                    Output.stderr(store.notSignedIn(forget: forget))
                }
                return
            }
            let result = try await stored.session.signOut()
            if forget { try store.forgetProfile() }
            try await report(result, session: stored.session, idToken: stored.idToken, port: stored.port, logger: logger) { revoked in
                store.signedOut(revoked: revoked, forget: forget)
            }
        }
    }

    /// After a sign-out: says what it did (`said`: nil
    /// without a revocation endpoint, else whether revocation succeeded),
    /// ends the provider's session, fails when revocation failed, and prints
    /// the JSON report when asked.
    func report(
        _ result: SignOutResult, session: AuthSession, idToken: String?, port: Int, logger: Logger, said: (Bool?) -> String
    ) async throws {
        let hasRevocation = session.client.metadata.revocationEndpoint != nil
        Output.stderr(said(hasRevocation ? result.revocationFailures.isEmpty : nil))
        let ending = EndProviderSession(
            client: session.client, idToken: idToken, port: port,
            browserTimeout: browserTimeout, noBrowser: noBrowser, showTokens: showTokens, logger: logger)
        let endSession = await ending.run(fallbackURL: result.endSessionURL)
        if let failure = result.revocationFailures.first {
            Output.stderr("Revocation failed, so the provider may accept the tokens until they expire:")
            throw failure
        }
        if json {
            Output.json(
                LogoutReport(
                    profile: profileOption.profile, signedIn: true, revoked: hasRevocation, profileDeleted: forget, endSession: endSession))
        }
    }
}
#endif
