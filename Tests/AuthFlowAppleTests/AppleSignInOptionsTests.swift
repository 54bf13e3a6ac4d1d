import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@Suite struct AppleSignInOptionsTests {
    let settings: AppleSignInSettings

    init() throws {
        settings = try AppleSignInSettings(dictionary: [
            "Issuer": "https://idp.example", "ClientID": "app", "RedirectURI": "com.example.app:/cb",
            "Scopes": "openid offline_access",
        ])
    }

    /// A browser that answers the authorization request with a code, and
    /// keeps the request's URL.
    final class ApprovingBrowser: AuthorizationUserAgent, @unchecked Sendable {
        var requested: URL?
        func authorize(_ request: AuthorizationRequest) async throws -> URL {
            requested = request.url
            return URL(string: "com.example.app:/cb?code=CODE-1&state=\(request.state)")!
        }
    }

    func query(_ url: URL?) -> [String: String] {
        let items = url.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false)?.queryItems } ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
    }

    @Test func theOptionsReachTheAuthorizationRequest() async throws {
        let options = AppleSignInOptions(
            scopes: ["openid", "profile"], prompt: ["login", "consent"], loginHint: "user@example.com", maxAge: 300,
            acrValues: ["urn:example:loa:2"], context: "Pay 10 EUR to Example", additionalParameters: [.init("ui_hint", "dark")])
        let browser = ApprovingBrowser()
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let grant = try await AppleSignInOptions.handOff(
            client: client, redirectURI: URL(string: "com.example.app:/cb")!, scopes: options.scopes(settings), options: options,
            userAgent: browser)
        let sent = query(browser.requested)
        #expect(sent["scope"] == "openid profile")
        #expect(sent["prompt"] == "login consent")
        #expect(sent["login_hint"] == "user@example.com")
        #expect(sent["max_age"] == "300")
        #expect(sent["acr_values"] == "urn:example:loa:2")
        #expect(sent["context"] == "Pay 10 EUR to Example")
        #expect(sent["ui_hint"] == "dark")
        #expect(grant.maxAge == 300)
        #expect(grant.requestedScopes == ["openid", "profile"])
    }

    @Test func theBackendHandoffReturnsTheUnredeemedGrantWithoutADPoPKey() async throws {
        let browser = ApprovingBrowser()
        let transport = ScriptedTransport.unused() // a token request would fail the test
        var client = try OAuthClient(metadata: metadata(), clientID: "app", transport: transport)
        client.dpop = DPoPBinding(key: DPoPKey())
        let grant = try await AppleSignInOptions.handOff(
            client: client, redirectURI: URL(string: "com.example.app:/cb")!, scopes: AppleSignInOptions().scopes(settings),
            options: AppleSignInOptions(), userAgent: browser)
        #expect(grant.code == "CODE-1")
        #expect(grant.codeVerifier.count >= 43)
        #expect(grant.clientID == "app")
        #expect(grant.redirectURI == URL(string: "com.example.app:/cb"))
        #expect(grant.requestedScopes == ["openid", "offline_access"], "the Info.plist scopes without options")
        #expect(transport.requests.isEmpty)
        #expect(query(browser.requested)["dpop_jkt"] == nil, "the backend's code is bound to no key of this device")
    }

    @Test func contextTwiceOrNoScopeIsAConfigurationError() throws {
        let twice = AppleSignInOptions(context: "a", additionalParameters: [.init("context", "b")])
        #expect(
            try #require(throws: AuthFlowError.self) { try twice.authorizationOptions() }.message == "the context parameter is given twice")
        let none = AppleSignInOptions(scopes: [])
        #expect(try #require(throws: AuthFlowError.self) { try none.authorizationOptions() }.category == .configuration)
    }

    @Test func aReservedParameterIsRefusedByTheEngine() async throws {
        let options = AppleSignInOptions(additionalParameters: [.init("state", "mine")])
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        await #expect(throws: AuthFlowError.self) {
            try await AppleSignInOptions.handOff(
                client: client, redirectURI: URL(string: "com.example.app:/cb")!, scopes: ["openid"], options: options,
                userAgent: ApprovingBrowser())
        }
    }
}
