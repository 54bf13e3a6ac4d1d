import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

/// App-to-app sign-in against the system's documented routing of universal
/// links (SystemUniversalLinks): the provider's app claims the authorization
/// endpoint, this app claims its https redirect URI; the engine checks the
/// redirect as always.
@Suite struct AppToAppTests {
    static let issuer = "https://bank.example"
    static let redirect = URL(string: "https://app.example.com/oauth/callback")!

    static func client(issPromised: Bool = true) throws -> OAuthClient {
        var metadata = ProviderMetadata(
            issuer: try Issuer(issuer), authorizationEndpoint: URL(string: "https://bank.example/authorize")!,
            tokenEndpoint: URL(string: "https://bank.example/token")!)
        metadata.authorizationResponseIssParameterSupported = issPromised
        return try OAuthClient(metadata: metadata, clientID: "fintech-app")
    }

    /// The provider's app: reads the request and returns to its redirect_uri with a code and `answer`'s changes.
    static func bankApp(
        _ system: SystemUniversalLinks, state: @escaping @Sendable (String) -> String = { $0 }, iss: String = issuer
    ) -> SystemUniversalLinks.App {
        SystemUniversalLinks.App(name: "Bank", host: "bank.example", paths: ["/authorize"]) { url in
            let query = Dictionary(
                URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.map { ($0.name, $0.value ?? "") } ?? [],
                uniquingKeysWith: { first, _ in first })
            var back = URLComponents(string: query["redirect_uri"] ?? "")!
            back.queryItems = [
                URLQueryItem(name: "code", value: "bank-code"), URLQueryItem(name: "state", value: state(query["state"] ?? "")),
                URLQueryItem(name: "iss", value: iss),
            ]
            system.open(back.url!)
        }
    }

    /// This app: claims its redirect path and hands every link to the inbox, as `onOpenURL` would.
    static func thisApp(_ redirects: AppToAppRedirects, handled: LockedCount = LockedCount()) -> SystemUniversalLinks.App {
        SystemUniversalLinks.App(name: "Fintech", host: "app.example.com", paths: ["/oauth/", "/offers/"]) { url in
            if redirects.handle(url) { handled.increment() }
        }
    }

    @Test func theProvidersAppSignsInAndReturnsToThisApp() async throws {
        let system = SystemUniversalLinks()
        let redirects = AppToAppRedirects()
        system.install(Self.bankApp(system))
        system.install(Self.thisApp(redirects))
        let fallback = RecordingFallback()
        let agent = AppToAppUserAgent(opener: system.opener(), redirects: redirects, fallback: fallback, timeout: .seconds(20))
        let grant = try await Self.client().authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
        #expect(grant.code == "bank-code")
        #expect(fallback.calls == 0 && system.openedInSafari.isEmpty)
    }

    @Test func noAppClaimsTheEndpointSoTheBrowserSignsIn() async throws {
        let system = SystemUniversalLinks()
        let redirects = AppToAppRedirects()
        system.install(Self.thisApp(redirects))
        let fallback = RecordingFallback()
        let agent = AppToAppUserAgent(opener: system.opener(), redirects: redirects, fallback: fallback, timeout: .seconds(20))
        let grant = try await Self.client().authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
        #expect(fallback.calls == 1 && grant.code == "browser-code")
        // The inbox is free again: a link arriving now is not taken.
        #expect(!redirects.handle(URL(string: "https://app.example.com/oauth/callback?code=x&state=y")!))
    }

    @Test func universalLinksTurnedOffForTheProvidersAppFallBackToTheBrowser() async throws {
        let system = SystemUniversalLinks()
        let redirects = AppToAppRedirects()
        system.install(Self.bankApp(system))
        system.install(Self.thisApp(redirects))
        system.disableUniversalLinks(of: "Bank")
        let fallback = RecordingFallback()
        let agent = AppToAppUserAgent(opener: system.opener(), redirects: redirects, fallback: fallback, timeout: .seconds(20))
        _ = try await Self.client().authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
        #expect(fallback.calls == 1)
    }

    @Test func aForgedStateOrIssuerFromTheReturnIsRefusedByTheEngine() async throws {
        for (state, iss, category) in [
            ({ @Sendable (_: String) in "forged" }, Self.issuer, AuthFlowError.Category.stateMismatch),
            ({ @Sendable (s: String) in s }, "https://evil.example", AuthFlowError.Category.issuerMismatch),
        ] {
            let system = SystemUniversalLinks()
            let redirects = AppToAppRedirects()
            system.install(Self.bankApp(system, state: state, iss: iss))
            system.install(Self.thisApp(redirects))
            let agent = AppToAppUserAgent(
                opener: system.opener(), redirects: redirects, fallback: RecordingFallback(), timeout: .seconds(20))
            let error = await #expect(throws: AuthFlowError.self) {
                _ = try await Self.client().authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
            }
            #expect(error?.category == category)
        }
    }

    @Test func otherLinksAreLeftToTheApp() async throws {
        let redirects = AppToAppRedirects()
        // No sign-in waits: nothing is taken.
        #expect(!redirects.handle(URL(string: "https://app.example.com/oauth/callback?code=x")!))
        let system = SystemUniversalLinks()
        let handled = LockedCount()
        // The provider's app is slow: an unrelated link arrives first.
        system.install(
            SystemUniversalLinks.App(name: "Bank", host: "bank.example", paths: ["/authorize"]) { url in
                system.open(URL(string: "https://app.example.com/offers/42")!)
                await Self.bankApp(system).receive(url)
            })
        system.install(Self.thisApp(redirects, handled: handled))
        let agent = AppToAppUserAgent(opener: system.opener(), redirects: redirects, fallback: RecordingFallback(), timeout: .seconds(20))
        let grant = try await Self.client().authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
        #expect(grant.code == "bank-code" && handled.value == 1)
    }

    @Test func aRedirectThisAppDoesNotClaimNeverReturnsAndTimesOutNamingTheAssociation() async throws {
        let system = SystemUniversalLinks()
        let redirects = AppToAppRedirects()
        system.install(Self.bankApp(system))
        // This app's applinks association lacks the redirect's path: the system opens it in Safari.
        system.install(SystemUniversalLinks.App(name: "Fintech", host: "app.example.com", paths: ["/offers/"]) { _ in })
        let agent = AppToAppUserAgent(
            opener: system.opener(), redirects: redirects, fallback: RecordingFallback(), timeout: .milliseconds(300))
        let error = await #expect(throws: AuthFlowError.self) {
            _ = try await Self.client().authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
        }
        #expect(error?.category == .timeout)
        #expect(error?.remedy == .checkTheAppLinksAssociation.with("app.example.com"))
        #expect(system.openedInSafari.count == 1)
    }

    @Test func cancelAndASecondSignInAreCancelled() async throws {
        let system = SystemUniversalLinks()
        let redirects = AppToAppRedirects()
        // The provider's app opens and the user never comes back.
        system.install(SystemUniversalLinks.App(name: "Bank", host: "bank.example", paths: ["/authorize"]) { _ in })
        let agent = AppToAppUserAgent(opener: system.opener(), redirects: redirects, fallback: RecordingFallback(), timeout: .seconds(60))
        let client = try Self.client()
        let first = Task { try await client.authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent) }
        try await Task.sleep(for: .milliseconds(100))
        let second = await #expect(throws: AuthFlowError.self) {
            _ = try await client.authorize(redirectURI: Self.redirect, scopes: ["openid"], userAgent: agent)
        }
        #expect(second?.remedy == .waitForTheSignInInProgress)
        redirects.cancel()
        let cancelled = await #expect(throws: AuthFlowError.self) { _ = try await first.value }
        #expect(cancelled?.category == .cancelled && cancelled?.message == "the sign-in in the provider's app was cancelled")
    }

    @Test func aCustomSchemeRedirectIsRefused() async throws {
        let agent = AppToAppUserAgent(
            opener: SystemUniversalLinks().opener(), redirects: AppToAppRedirects(), fallback: RecordingFallback())
        let error = await #expect(throws: AuthFlowError.self) {
            _ = try await Self.client().authorize(
                redirectURI: URL(string: "com.example.app:/oauth")!, scopes: ["openid"], userAgent: agent)
        }
        #expect(error?.message == "app-to-app sign-in needs an https redirect URI (a universal link this app claims)")
    }
}

/// The browser sign-in of the fallback: answers with its own code, counting its calls.
final class RecordingFallback: AuthorizationUserAgent {
    private let count = LockedValue(0)
    var calls: Int { count.withLock { $0 } }

    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        count.withLock { $0 += 1 }
        var back = URLComponents(url: request.redirectURI, resolvingAgainstBaseURL: false)!
        back.queryItems = [
            URLQueryItem(name: "code", value: "browser-code"), URLQueryItem(name: "state", value: request.state),
            URLQueryItem(name: "iss", value: AppToAppTests.issuer),
        ]
        return back.url!
    }
}

final class LockedCount: Sendable {
    private let count = LockedValue(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
