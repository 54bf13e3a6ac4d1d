import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowLoopback

/// The page the browser shows is the outcome the application reports: the
/// success page only for a code that passes the engine's callback
/// validation, an error page (echoing nothing the server sent) for an error
/// response or anything else. The OpenID Foundation RP test
/// `rp-response_mode-form_post-error` expects the error screen.
@Suite struct CallbackPageTests {
    static let hostile = "\u{1b}]0;pwned\u{07}<script>alert(1)</script>"

    func get(port: Int, query: String) -> (status: Int?, text: String, closed: Bool) {
        rawHTTP(port: port, Array("GET /callback?\(query) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
    }

    /// Sends one callback with `pairs` (plus the right state) and returns the
    /// answer, after checking the callback still reaches the waiting caller.
    func answer(formPost: Bool, _ pairs: [(String, String)], options: AuthorizationOptions? = nil) async throws -> String {
        let listener = try await LoopbackListener.start()
        let request = try FormPostTests.formPostRequest(
            listener, mode: options ?? AuthorizationOptions(responseMode: formPost ? .formPost : nil))
        listener.prepare(for: request)
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
        let body = FormEncoding.encode(pairs + [("state", request.state)])
        let response = formPost ? post(port: listener.port, body: body) : get(port: listener.port, query: body)
        #expect(response.status == 200)
        _ = try await waiting.value
        await listener.close()
        #expect(!response.text.contains(request.state))
        return response.text
    }

    func isErrorPage(_ text: String) -> Bool {
        text.contains("<title>Sign-in failed</title>") && !text.contains("Signed in")
    }

    @Test func accessDeniedByRedirectShowsTheErrorPage() async throws {
        let text = try await answer(formPost: false, [("error", "access_denied"), ("error_description", Self.hostile)])
        #expect(isErrorPage(text))
        #expect(!text.contains("access_denied") && !text.contains("pwned") && !text.contains("<script>"))
    }

    @Test func formPostedLoginRequiredShowsTheErrorPage() async throws {
        let text = try await answer(
            formPost: true,
            [
                ("error", "login_required"), ("error_description", Self.hostile),
                ("error_uri", "https://evil.example/x"),
            ])
        #expect(isErrorPage(text))
        #expect(!text.contains("login_required") && !text.contains("pwned") && !text.contains("evil.example"))
    }

    @Test func wrongIssuerShowsTheErrorPage() async throws {
        let text = try await answer(formPost: true, [("code", "c"), ("iss", "https://evil.example")])
        #expect(isErrorPage(text))
    }

    @Test func noCodeShowsTheErrorPage() async throws {
        #expect(isErrorPage(try await answer(formPost: false, [("session_state", "x")])))
        #expect(isErrorPage(try await answer(formPost: false, [("code", "")])))
    }

    @Test func repeatedParameterShowsTheErrorPage() async throws {
        #expect(isErrorPage(try await answer(formPost: false, [("code", "a"), ("code", "b")])))
    }

    @Test func acceptedCodeShowsTheSuccessPage() async throws {
        for formPost in [false, true] {
            let text = try await answer(formPost: formPost, [("code", "c0de"), ("iss", "https://idp.example")])
            #expect(text.contains("<title>Signed in</title>"))
            #expect(!text.contains("c0de"))
        }
    }

    @Test func wrongStateStaysTheUnexpectedPageAndTheRightOneStillCounts() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        listener.prepare(for: request)
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
        let wrong = get(port: listener.port, query: "error=access_denied&state=wrong")
        #expect(wrong.status == 400)
        #expect(wrong.text.contains("Unexpected response"))
        let right = get(port: listener.port, query: "code=c&state=\(request.state)")
        #expect(right.text.contains("<title>Signed in</title>"))
        #expect(try request.validateCallback(try await waiting.value).code == "c")
        await listener.close()
    }
}
