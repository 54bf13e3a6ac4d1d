import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowLoopback

/// The one-time page that POSTs the RP-initiated logout form, and the
/// provider's redirect back: the ID token is never in a URL the opener sees.
@Suite struct EndSessionPageTests {
    static let idToken = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln"

    static func request(
        _ listener: LoopbackListener, clientID: String = "app",
        endpoint: String = "https://idp.example/logout"
    ) throws -> EndSessionRequest {
        let metadata = ProviderMetadata(
            issuer: "https://idp.example", authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
            tokenEndpoint: URL(string: "https://idp.example/token")!, endSessionEndpoint: URL(string: endpoint)!)
        let client = try OAuthClient(metadata: metadata, clientID: clientID)
        return try #require(client.endSessionRequest(idTokenHint: idToken, postLogoutRedirectURI: listener.redirectURI))
    }

    func get(_ port: Int, _ target: String) -> (status: Int?, text: String, closed: Bool) {
        rawHTTP(port: port, Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
    }

    @Test func pageIsServedOnceAndPostsTheFormWithANonceScript() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.request(listener)
        let url = listener.endSessionPage(for: request)
        #expect(url.host == "127.0.0.1" && url.port == listener.port)
        #expect(url.path.hasPrefix("/end-session/") && url.path.count > 40)
        #expect(url.query == nil && !url.absoluteString.contains(Self.idToken))

        let page = get(listener.port, url.path)
        #expect(page.status == 200)
        #expect(page.text.contains(#"<form method="post" action="https://idp.example/logout">"#))
        #expect(page.text.contains(#"<input type="hidden" name="id_token_hint" value="\#(Self.idToken)">"#))
        #expect(
            page.text.contains(#"<input type="hidden" name="post_logout_redirect_uri" value="\#(listener.redirectURI.absoluteString)">"#))
        #expect(page.text.contains("Cache-Control: no-store"))
        #expect(page.text.contains("Referrer-Policy: no-referrer"))
        let nonce = try #require(page.text.firstMatch(of: #/script-src 'nonce-([A-Za-z0-9_-]{43})'/#)?.output.1)
        #expect(page.text.contains(#"<script nonce="\#(nonce)">document.forms[0].submit()</script>"#))

        // Once: a second fetch (another local process, a reload) gets nothing.
        let again = get(listener.port, url.path)
        #expect(again.status == 404 && !again.text.contains(Self.idToken))
        await listener.close()
    }

    @Test func valuesAreEscapedForHTML() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.request(listener, clientID: #"a"><script>x</script>&'"#)
        let url = listener.endSessionPage(for: request)
        let page = get(listener.port, url.path)
        #expect(page.text.contains(#"value="a&quot;&gt;&lt;script&gt;x&lt;/script&gt;&amp;&#39;""#))
        #expect(!page.text.contains("<script>x"))
        await listener.close()
    }

    @Test func redirectBackWithTheStateIsSignedOut() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.request(listener)
        _ = listener.endSessionPage(for: request)
        let waiting = Task { try await listener.waitForEndSessionRedirect(for: request, timeout: 10) }
        let wrong = get(listener.port, "/callback?state=wrong")
        #expect(wrong.status == 400 && wrong.text.contains("Unexpected response"))
        let none = get(listener.port, "/callback")
        #expect(none.status == 400)
        let state = try #require(request.state)
        let right = get(listener.port, "/callback?" + FormEncoding.encode([("state", state)]))
        #expect(right.status == 200 && right.text.contains("<title>Signed out</title>") && !right.text.contains(state))
        try request.validateRedirect(try await waiting.value)
        await listener.close()
    }

    @Test func noRedirectInTimeIsATimeout() async throws {
        let listener = try await LoopbackListener.start()
        let request = try Self.request(listener)
        _ = listener.endSessionPage(for: request)
        await expectError(.timeout) { try await listener.waitForEndSessionRedirect(for: request, timeout: 0.2) }
        await listener.close()
    }

    @Test func requestForAnotherRedirectIsRefused() async throws {
        let listener = try await LoopbackListener.start()
        let other = try await LoopbackListener.start()
        let request = try Self.request(other)
        await expectError(.configuration) { try await listener.waitForEndSessionRedirect(for: request, timeout: 1) }
        await listener.close()
        await other.close()
    }
}
