#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The end of `authflow logout`: RP-initiated logout (OpenID Connect
/// RP-Initiated Logout 1.0) without the ID token on any command line.
///
/// The browser opener gets only the URL of a one-time page on a loopback
/// listener, which POSTs `client_id`, `id_token_hint`,
/// `post_logout_redirect_uri` (the listener) and a fresh `state` to the
/// provider's end-session endpoint. The provider confirms by redirecting
/// back with that `state`. The opener's output is discarded (`xdg-open`
/// prints the URL it opens); only its failure is reported.
///
/// The command never waits long for the provider: the local sign-out and
/// the revocation are already done. It waits for the browser to load the
/// one-time page (the listener must serve it; at most
/// ``pageLoadTimeout``), then for the confirmation only `--browser-timeout`
/// seconds (default ``defaultConfirmationTimeout``): many providers (Okta,
/// Auth0 and Entra ID when the loopback URI is registered only for sign-in,
/// Cognito's `/logout`, any that shows its own "signed out" page) never
/// redirect back, and are reported `not_confirmed`.
struct EndProviderSession {
    /// Seconds `logout` waits for the provider's confirmation once the browser has the page.
    static let defaultConfirmationTimeout: Double = 5
    /// Seconds the browser has to load the one-time page from the listener.
    static let pageLoadTimeout: Double = 30

    /// How the provider session ended, as `logout --json` reports it in `end_session`.
    enum Outcome: String, Encodable {
        /// The provider redirected back with the state sent.
        case confirmed
        /// The browser loaded the page, but no redirect with the state came back within `--browser-timeout`.
        case notConfirmed = "not_confirmed"
        /// `--no-browser`, or the browser could not be started or did not load the page: the URL was printed.
        case notOpened = "not_opened"
        /// The provider has no end-session endpoint.
        case notSupported = "not_supported"
        /// The profile held no credentials: nothing to end.
        case notSignedIn = "not_signed_in"
    }

    let client: OAuthClient
    let idToken: String?
    let port: Int
    let browserTimeout: Double
    let noBrowser: Bool
    let showTokens: Bool
    let logger: Logger

    /// Ends the provider session; `fallbackURL` is the GET end-session URL
    /// (with the ID token), printed when the page is not opened.
    func run(fallbackURL: URL?) async -> Outcome {
        guard client.metadata.endSessionEndpoint != nil else { return .notSupported }
        if noBrowser {
            printURL(fallbackURL)
            return .notOpened
        }
        let listener: LoopbackListener
        do {
            listener = try await LoopbackListener.start(port: port, logger: logger)
        } catch {
            Output.stderr("warning: \(error)")
            printURL(fallbackURL)
            return .notOpened
        }
        guard let request = client.endSessionRequest(idTokenHint: idToken, postLogoutRedirectURI: listener.redirectURI) else {
            await listener.close()
            return .notSupported
        }
        let page = listener.endSessionPage(for: request)
        Output.stderr("Opening the provider's end-session page through \(page.absoluteString)")
        let openerFailed = LockedValue(false)
        do {
            try SystemBrowser.openQuietly(page) { status in
                openerFailed.withLock { $0 = true }
                Output.stderr("warning: the browser command exited with status \(status)")
            }
        } catch {
            Output.stderr("warning: \(error)")
            printURL(fallbackURL)
            await listener.close()
            return .notOpened
        }
        guard await pageLoaded(listener, openerFailed: openerFailed) else {
            Output.stderr("The browser did not load the end-session page.")
            printURL(fallbackURL)
            await listener.close()
            return .notOpened
        }
        let seconds = Int(browserTimeout.rounded(.up))
        Output.stderr("Waiting up to \(seconds) s for the provider to confirm the sign-out…")
        let outcome: Outcome
        do {
            let redirect = try await listener.waitForEndSessionRedirect(for: request, timeout: browserTimeout)
            try request.validateRedirect(redirect)
            Output.stderr("The provider confirmed the end of its session.")
            outcome = .confirmed
        } catch let error as AuthFlowError where error.category == .timeout {
            Output.stderr(
                "The provider did not confirm the end of its session within \(seconds) s; the sign-out here stands. "
                    + "Many providers show their own page instead of redirecting back to \(listener.redirectURI.absoluteString) "
                    + "(or ask the user to confirm); --browser-timeout SECONDS waits longer.")
            outcome = .notConfirmed
        } catch {
            Output.stderr(
                "The provider did not confirm the end of its session (\(error)); "
                    + "it may have asked to confirm, or refused the post-logout redirect URI \(listener.redirectURI.absoluteString).")
            outcome = .notConfirmed
        }
        await listener.close()
        return outcome
    }

    /// Waits until the browser has loaded the one-time page (true), the
    /// opener failed, or ``pageLoadTimeout`` passed (false). Bounded: at most
    /// `pageLoadTimeout` / 0.05 checks.
    private func pageLoaded(_ listener: LoopbackListener, openerFailed: LockedValue<Bool>) async -> Bool {
        let checks = Int(Self.pageLoadTimeout / 0.05)
        for _ in 0..<checks {
            if listener.endSessionPageServed { return true }
            if openerFailed.withLock({ $0 }) { return false }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return listener.endSessionPageServed
    }

    /// Prints the end-session URL, without the ID token unless `--show-tokens`.
    private func printURL(_ url: URL?) {
        guard let url else { return }
        let shown = showTokens ? url : Self.withoutIDTokenHint(url)
        Output.stderr("End the provider session at:\n\(shown.absoluteString)")
    }

    /// `url` without its `id_token_hint` (the provider may then ask the user to confirm).
    static func withoutIDTokenHint(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.percentEncodedQueryItems = components.percentEncodedQueryItems?.filter { $0.name != "id_token_hint" }
        return components.url ?? url
    }
}

/// What `authflow logout --json` prints on success.
struct LogoutReport: Encodable {
    let profile: String
    /// Whether the profile held credentials.
    let signedIn: Bool
    /// Whether the tokens were revoked at the provider (false: it has no revocation endpoint).
    let revoked: Bool
    /// Whether the whole profile was deleted (`--forget`).
    let profileDeleted: Bool
    let endSession: EndProviderSession.Outcome

    enum CodingKeys: String, CodingKey {
        case profile, revoked
        case signedIn = "signed_in"
        case profileDeleted = "profile_deleted"
        case endSession = "end_session"
    }
}
#endif
