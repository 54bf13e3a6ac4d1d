#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowLoopback
import AuthFlowProvider
import Foundation
import Testing

/// RP-initiated logout as `authflow logout` does it, against the embedded
/// provider: the listener's one-time page POSTs the form (the ID token in
/// the body), the provider ends the session and redirects to the loopback
/// `post_logout_redirect_uri` (registered as `http://127.0.0.1/callback`,
/// any port, RFC 8252 §7.3) with the `state`, and the listener confirms.
@Suite struct LoopbackLogoutTests {
    /// Plays the browser: fetches the one-time page, submits its form as a
    /// browser would, and follows the provider's redirect. Returns the last
    /// answer (the listener's page, or the provider's error page).
    static func follow(_ page: URL) async throws -> (status: Int, body: String) {
        let browser = HeadlessBrowser()
        let form = String(decoding: try await browser.get(page).body, as: UTF8.self)
        let action = try #require(form.firstMatch(of: #/<form method="post" action="([^"]+)">/#)?.output.1)
        let fields = form.matches(of: #/<input type="hidden" name="([^"]*)" value="([^"]*)">/#).map {
            (String($0.output.1), String($0.output.2))
        }
        let endpoint = try #require(URL(string: String(action)))
        let answer = try await browser.transport.send(
            HTTPTransportRequest(
                method: "POST", url: endpoint, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Data(FormEncoding.encode(fields).utf8), timeout: 10))
        guard answer.status == 302, let location = answer.header("Location"), let next = URL(string: location) else {
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }
        let back = try await browser.get(next)
        return (back.status, String(decoding: back.body, as: UTF8.self))
    }

    @Test("the one-time page POSTs the logout; the provider redirects back with the state; the listener confirms")
    func confirmedByRedirect() async throws {
        try await Fixture.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let credentials = try await client.exchange(authorize(client).1)
            let listener = try await LoopbackListener.start()
            let request = try #require(
                client.endSessionRequest(
                    idTokenHint: credentials.token.idToken,
                    postLogoutRedirectURI: listener.redirectURI))
            let page = listener.endSessionPage(for: request)
            let idToken = try #require(credentials.token.idToken)
            #expect(!page.absoluteString.contains(idToken))
            let waiting = Task { try await listener.waitForEndSessionRedirect(for: request, timeout: 10) }
            let last = try await Self.follow(page)
            #expect(last.status == 200 && last.body.contains("<title>Signed out</title>"))
            try request.validateRedirect(try await waiting.value)
            await listener.close()
        }
    }

    @Test("a post-logout redirect the client did not register is refused by the provider: nothing confirms")
    func unregisteredRedirectIsNotConfirmed() async throws {
        try await Fixture.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let credentials = try await client.exchange(authorize(client).1)
            let listener = try await LoopbackListener.start(path: "/elsewhere")
            let request = try #require(
                client.endSessionRequest(
                    idTokenHint: credentials.token.idToken,
                    postLogoutRedirectURI: listener.redirectURI))
            let waiting = Task { try await listener.waitForEndSessionRedirect(for: request, timeout: 1) }
            let last = try await Self.follow(listener.endSessionPage(for: request))
            #expect(last.status == 400)
            await #expect(throws: AuthFlowError.self) { try await waiting.value }
            await listener.close()
        }
    }
}
#endif
