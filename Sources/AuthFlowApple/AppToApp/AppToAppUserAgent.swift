public import AuthFlow
public import Foundation

/// App-to-app sign-in: the authorization request goes to the provider's own
/// app (a bank's, a carrier's), which claims the authorization endpoint as a
/// universal link, signs the user in with what it already knows (Face ID,
/// its own session) and returns to this app's https redirect URI, a
/// universal link this app claims. The pattern of UK Open Banking and FAPI
/// 2.0, and the standard form of ZenKey's primary flow.
///
/// The authorization URL is opened as a universal link only
/// (``UniversalLinkOpener``): never in a browser. When no installed app
/// claims it, or the user turned universal links off for it, the sign-in
/// goes on in `fallback` (an `AuthorizationUserAgent` such as
/// ``WebAuthenticationUserAgent``) instead. The redirect comes back through
/// the app's entry points into ``AppToAppRedirects``; the engine then checks
/// `state`, `iss` and redeems the code with PKCE as for any redirect.
///
/// ```swift
/// let agent = AppToAppUserAgent(
///     opener: SystemUniversalLinkOpener(application: .shared), fallback: WebAuthenticationUserAgent(anchor: window))
/// let credentials = try await client.signIn(redirectURI: redirect, scopes: ["openid"], userAgent: agent)
/// // and in the SwiftUI scene: .onOpenURL { AppToAppRedirects.shared.handle($0) }
/// ```
///
/// The redirect URI must be https: a custom scheme can be claimed by any
/// app, and the provider's app would hand the code to whichever did.
public struct AppToAppUserAgent: AuthorizationUserAgent {
    /// How the authorization URL is opened.
    public let opener: any UniversalLinkOpener
    /// Where the redirect arrives.
    public let redirects: AppToAppRedirects
    /// Where the sign-in goes on when no app claims the authorization URL.
    public let fallback: any AuthorizationUserAgent
    /// How long the provider's app has to return.
    public let timeout: Duration

    /// An app-to-app user agent.
    ///
    /// - Parameters:
    ///   - opener: the system's (``SystemUniversalLinkOpener``), or a stand-in in tests.
    ///   - redirects: the app's inbox (``AppToAppRedirects/shared`` by default).
    ///   - fallback: the browser sign-in used when no app claims the link.
    ///   - timeout: how long to wait for the provider's app (5 minutes by default).
    public init(
        opener: any UniversalLinkOpener, redirects: AppToAppRedirects = .shared,
        fallback: any AuthorizationUserAgent, timeout: Duration = .seconds(300)
    ) {
        self.opener = opener
        self.redirects = redirects
        self.fallback = fallback
        self.timeout = timeout
    }

    /// Opens the request in the provider's app and waits for its redirect,
    /// or signs in through `fallback` when no app claims the link.
    ///
    /// - Throws: `configuration` for a redirect URI that is not https;
    ///   `cancelled` for a second sign-in while one waits (remedy
    ///   `waitForTheSignInInProgress`), ``AppToAppRedirects/cancel()`` or a
    ///   cancelled task; `timeout` when the provider's app does not return
    ///   within ``timeout`` (remedy `checkTheAppLinksAssociation`
    ///   naming the redirect's host); the fallback's errors.
    public func authorize(_ request: AuthorizationRequest) async throws -> URL {
        let match = try CallbackMatch(redirectURI: request.redirectURI)
        guard case .https(let host, _) = match else {
            throw AuthFlowError(
                .configuration, "app-to-app sign-in needs an https redirect URI (a universal link this app claims)",
                recovery: "Register an https redirect URI with the provider and claim its path in the app's applinks association.")
        }
        let id = try redirects.expect(match)
        guard await opener.openUniversalLink(request.url) else {
            redirects.abandon(id)
            return try await fallback.authorize(request)
        }
        let redirects = redirects
        let timeout = timeout
        let timer = Task {
            try await Task.sleep(for: timeout)
            redirects.fail(
                id,
                AuthFlowError(
                    .timeout, "the provider's app did not return to \(host) within \(timeout.components.seconds) s",
                    recovery:
                        "Check that this app claims the redirect URI's path in the applinks association of \(host) (authflow aasa), "
                        + "and that the provider's app returns to it.",
                    remedy: .checkTheAppLinksAssociation.with(host)))
        }
        defer { timer.cancel() }
        return try await redirects.redirect(id)
    }
}

extension AuthFlowError.Remedy {
    /// The provider's app did not come back: this app must claim its https
    /// redirect URI as a universal link (`applinks:` and the host, the
    /// remedy's value, in the Associated Domains entitlement; the path in
    /// the host's apple-app-site-association file).
    public static let checkTheAppLinksAssociation = Self(name: "check_the_applinks_association")
}
