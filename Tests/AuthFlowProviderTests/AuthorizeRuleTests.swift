#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

@Suite("Authorization endpoint rules")
struct AuthorizeRuleTests {
    private func query(
        client: String = "authflow-demo", redirect: String = "http://127.0.0.1:9/callback",
        _ extra: [(String, String)]
    ) -> [(String, String)] {
        [("response_type", "code"), ("client_id", client), ("redirect_uri", redirect), ("scope", "openid"), ("state", "st4te")] + extra
    }

    /// Follows one redirect and returns the parameters; fails when there is no redirect.
    private func redirect(_ wire: Wire, _ query: [(String, String)]) async throws -> (URL, [String: String]) {
        let location = try await HeadlessBrowser().redirectLocation(of: wire.url("/authorize", query))
        return (location, Wire.parameters(of: location))
    }

    @Test("plain PKCE is refused with invalid_request, state and iss")
    func plainRefused() async throws {
        try await Fixture.with { provider in
            let (_, parameters) = try await redirect(
                Wire(provider: provider), query([("code_challenge", someChallenge), ("code_challenge_method", "plain")]))
            #expect(parameters["error"] == "invalid_request")
            #expect(parameters["error_description"]?.contains("S256") == true)
            #expect(parameters["state"] == "st4te" && parameters["iss"] == provider.issuer.identifier && parameters["code"] == nil)
        }
    }

    @Test("a missing code_challenge or code_challenge_method is invalid_request")
    func missingChallenge() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let (_, noChallenge) = try await redirect(wire, query([("code_challenge_method", "S256")]))
            #expect(noChallenge["error"] == "invalid_request" && noChallenge["error_description"]?.contains("code_challenge") == true)
            let (_, noMethod) = try await redirect(wire, query([("code_challenge", someChallenge)]))
            #expect(noMethod["error"] == "invalid_request")
        }
    }

    @Test("unknown redirect URI or client: an error page, never a redirect")
    func unknownRedirect() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let pkce = [("code_challenge", someChallenge), ("code_challenge_method", "S256")]
            for bad in [
                query(redirect: "http://127.0.0.1:9/elsewhere", pkce), query(redirect: "http://localhost:9/callback", pkce),
                query(redirect: "https://evil.example/callback", pkce), query(client: "nobody", pkce),
                query(pkce + [("redirect_uri", "http://127.0.0.1:9/callback")]),
            ] {
                let response = try await wire.get("/authorize", bad)
                #expect(response.status == 400 && response.header("Location") == nil && response.mediaType == "text/html")
            }
        }
    }

    @Test("a registered loopback redirect accepts any port, IPv4 and IPv6; others match exactly")
    func anyLoopbackPort() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let pkce = [("code_challenge", someChallenge), ("code_challenge_method", "S256")]
            for target in [
                "http://127.0.0.1:54321/callback", "http://127.0.0.1:1/callback", "http://[::1]:4242/callback", "http://127.0.0.1/callback",
            ] {
                let (location, parameters) = try await redirect(wire, query(redirect: target, pkce))
                #expect(location.absoluteString.hasPrefix(target + "?"))
                #expect(parameters["code"] != nil && parameters["state"] == "st4te")
            }
            let exact = try await wire.get(
                "/authorize", query(client: "post-client", redirect: "https://app.example.com:8443/cb?x=1", pkce))
            #expect(exact.status == 400)
            let (location, parameters) = try await redirect(
                wire, query(client: "post-client", redirect: "https://app.example.com/cb?x=1", pkce))
            #expect(location.absoluteString.hasPrefix("https://app.example.com/cb?x=1&") && parameters["x"] == "1")
        }
    }

    @Test("a repeated parameter is invalid_request")
    func repeatedParameter() async throws {
        try await Fixture.with { provider in
            let (_, parameters) = try await redirect(
                Wire(provider: provider),
                query([("code_challenge", someChallenge), ("code_challenge_method", "S256"), ("scope", "profile")]))
            #expect(parameters["error"] == "invalid_request" && parameters["error_description"]?.contains("scope") == true)
        }
    }

    @Test("unsupported response type and unknown scope")
    func responseTypeAndScope() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let pkce = [("code_challenge", someChallenge), ("code_challenge_method", "S256")]
            var implicit = query(pkce)
            implicit[0] = ("response_type", "token")
            let implicitResult = try await redirect(wire, implicit).1
            #expect(implicitResult["error"] == "unsupported_response_type")
            var scope = query(pkce)
            scope[3] = ("scope", "openid admin")
            let scopeResult = try await redirect(wire, scope).1
            #expect(scopeResult["error"] == "invalid_scope")
        }
    }

    @Test("login page: a form, a wrong password shows it again, the right one redirects with a code")
    func loginPage() async throws {
        try await Fixture.with(signIn: .loginPage) { provider in
            let wire = Wire(provider: provider)
            let base = query([("code_challenge", someChallenge), ("code_challenge_method", "S256")])
            let page = try await wire.get("/authorize", base)
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("name=\"password\""))
            let wrong = try await wire.post(
                "/authorize", base + [("authflow_login", "1"), ("username", "demo"), ("password", "nope"), ("decision", "allow")])
            #expect(wrong.status == 200 && String(decoding: wrong.body, as: UTF8.self).contains("Wrong username or password"))
            let right = try await wire.post(
                "/authorize", base + [("authflow_login", "1"), ("username", "demo"), ("password", "demo"), ("decision", "allow")])
            let location = try #require(right.header("Location").flatMap(URL.init(string:)))
            #expect(right.status == 302 && Wire.parameters(of: location)["code"] != nil)
            let denied = try await wire.post("/authorize", base + [("authflow_login", "1"), ("decision", "deny")])
            #expect(Wire.parameters(of: try #require(denied.header("Location").flatMap(URL.init(string:))))["error"] == "access_denied")
            let silent = try await HeadlessBrowser().redirectLocation(of: wire.url("/authorize", base + [("prompt", "none")]))
            #expect(Wire.parameters(of: silent)["error"] == "login_required")
        }
    }
}
#endif
