#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

/// Pushed authorization requests (RFC 9126), the engine against the embedded provider.
@Suite("Pushed authorization requests")
struct PARTests {
    static let redirect = "http://127.0.0.1/callback"
    static let key = try! ClientAssertionKey.generate(algorithm: "ES256", keyID: "par")

    static func with<T>(
        pushedLifetime: TimeInterval = 60, signIn: SignInMode = .automatic(subject: "demo"),
        _ body: (EmbeddedProvider) async throws -> T
    ) async throws -> T {
        var configuration = Fixture.configuration(signIn: signIn)
        configuration.lifetimes.pushedRequest = pushedLifetime
        configuration.clients += [
            ProviderClient(id: "par-required", redirectURIs: [redirect], requirePushedAuthorizationRequests: true),
            ProviderClient(
                id: "par-jwt", authentication: .privateKeyJWT, redirectURIs: [redirect],
                jwks: .object(["keys": .array([.object(key.publicJWK)])]), requirePushedAuthorizationRequests: true),
        ]
        return try await Fixture.with(configuration, body)
    }

    static func query(_ url: URL) -> [String: String] { Wire.parameters(of: url) }

    @Test("the browser URL carries only client_id and request_uri; the flow completes; expires_in is kept")
    func pushedFlow() async throws {
        try await Self.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            let before = Date()
            let request = try await client.pushedAuthorizationRequest(
                redirectURI: URL(string: Self.redirect)!, scopes: ["openid", "profile"])
            let parameters = Self.query(request.url)
            #expect(Set(parameters.keys) == ["client_id", "request_uri"])
            #expect(parameters["client_id"] == "par-required")
            #expect(parameters["request_uri"]?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
            let expiry = try #require(request.pushedRequestExpiresAt)
            #expect(expiry.timeIntervalSince(before) > 55 && expiry.timeIntervalSince(before) < 65)
            let location = try await HeadlessBrowser().redirectLocation(of: request.url)
            let credentials = try await client.exchange(try request.validateCallback(location))
            #expect(credentials.subject == "demo")
            // One use only.
            let again = try await HeadlessBrowser().get(request.url)
            #expect(again.status == 400)
            #expect(String(decoding: again.body, as: UTF8.self).contains("invalid_request_uri"))
        }
    }

    /// The hidden fields of a login page, as its form posts them.
    static func hiddenFields(_ page: HTTPTransportResponse) -> [(String, String)] {
        let html = String(decoding: page.body, as: UTF8.self)
        let pattern = /<input type="hidden" name="([^"]*)" value="([^"]*)">/
        return html.matches(of: pattern).map { match in
            let value = String(match.output.2).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(
                    of: "&amp;", with: "&")
            return (String(match.output.1), value)
        }
    }

    @Test(
        "login page with a PAR-only client: the form posts an interaction handle back; a DPoP key named in the push binds the code; one code per push"
    )
    func loginPageWithPushedRequest() async throws {
        try await Self.with(signIn: .loginPage) { provider in
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            client.dpop = DPoPBinding()
            let request = try await client.pushedAuthorizationRequest(
                redirectURI: URL(string: Self.redirect)!, scopes: ["openid", "profile"])
            let page = try await HeadlessBrowser().get(request.url)
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains("openid, profile"))
            let hidden = Self.hiddenFields(page)
            #expect(Set(hidden.map(\.0)) == ["authflow_login", "client_id", "authflow_interaction"])
            // The request_uri was used up when the browser brought it (RFC 9126 §4: one use).
            let reused = try await HeadlessBrowser().get(request.url)
            #expect(reused.status == 400 && String(decoding: reused.body, as: UTF8.self).contains("invalid_request_uri"))
            let wire = Wire(provider: provider)
            let wrong = try await wire.post("/authorize", hidden + [("username", "demo"), ("password", "nope"), ("decision", "allow")])
            #expect(wrong.status == 200 && String(decoding: wrong.body, as: UTF8.self).contains("Wrong username or password"))
            #expect(Self.hiddenFields(wrong).map(\.1) == hidden.map(\.1), "the page shown again still posts the same interaction")
            let right = try await wire.post("/authorize", hidden + [("username", "demo"), ("password", "demo"), ("decision", "allow")])
            let location = try #require(right.header("Location").flatMap(URL.init(string:)))
            #expect(right.status == 302)
            let grant = try request.validateCallback(location)
            // The push named the client's key (dpop_jkt): another key cannot redeem the code.
            var thief = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            thief.dpop = DPoPBinding()
            let stolen = await #expect(throws: AuthFlowError.self) { try await thief.exchange(grant) }
            #expect(stolen?.oauth?.errorDescription == "the DPoP proof's key is not the dpop_jkt of the authorization request")
            // The interaction is over: posting it again is refused.
            let again = try await wire.post("/authorize", hidden + [("username", "demo"), ("password", "demo"), ("decision", "allow")])
            #expect(
                again.status == 400
                    && String(decoding: again.body, as: UTF8.self)
                        .contains("this sign-in has expired or already ended; start it again from the application")
            )
        }
    }

    @Test("the login page outlives the request_uri: a user slower than its lifetime still signs in; the interaction has its own lifetime")
    func loginPageOutlivesTheRequestURI() async throws {
        var configuration = Fixture.configuration(signIn: .loginPage)
        configuration.lifetimes.pushedRequest = 1
        configuration.lifetimes.interaction = 3
        configuration.clients.append(
            ProviderClient(id: "par-required", redirectURIs: [Self.redirect], requirePushedAuthorizationRequests: true))
        try await Fixture.with(configuration) { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            let wire = Wire(provider: provider)
            let request = try await client.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            let hidden = Self.hiddenFields(try await HeadlessBrowser().get(request.url))
            try await Task.sleep(for: .milliseconds(1500)) // past the request_uri's lifetime
            let signedIn = try await wire.post("/authorize", hidden + [("username", "demo"), ("password", "demo"), ("decision", "allow")])
            #expect(signedIn.status == 302)
            _ = try await client.exchange(
                try request.validateCallback(try #require(signedIn.header("Location").flatMap(URL.init(string:)))))

            let slow = try await client.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            let slowHidden = Self.hiddenFields(try await HeadlessBrowser().get(slow.url))
            try await Task.sleep(for: .milliseconds(3500)) // past the interaction's lifetime
            let expired = try await wire.post(
                "/authorize", slowHidden + [("username", "demo"), ("password", "demo"), ("decision", "allow")])
            #expect(expired.status == 400 && String(decoding: expired.body, as: UTF8.self).contains("this sign-in has expired"))
        }
    }

    @Test("login page: a DPoP key named in a plain request (dpop_jkt) is carried through the form and binds the code")
    func loginPageCarriesDPoPJKT() async throws {
        try await Self.with(signIn: .loginPage) { provider in
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            client.dpop = DPoPBinding()
            let request = try client.authorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            let hidden = Self.hiddenFields(try await HeadlessBrowser().get(request.url))
            #expect(hidden.first { $0.0 == "dpop_jkt" }?.1 == client.dpop?.key.thumbprint)
            let right = try await Wire(provider: provider).post(
                "/authorize", hidden + [("username", "demo"), ("password", "demo"), ("decision", "allow")])
            let grant = try request.validateCallback(try #require(right.header("Location").flatMap(URL.init(string:))))
            var thief = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            thief.dpop = DPoPBinding()
            let stolen = await #expect(throws: AuthFlowError.self) { try await thief.exchange(grant) }
            #expect(stolen?.oauth?.errorDescription == "the DPoP proof's key is not the dpop_jkt of the authorization request")
            #expect(try await client.exchange(grant).token.tokenType == "DPoP")
        }
    }

    @Test("signIn pushes when the metadata requires it, authenticating with private_key_jwt")
    func automaticWhenRequired() async throws {
        try await Self.with { provider in
            var metadata = try await ProviderMetadata.discover(issuer: provider.issuer)
            #expect(metadata.pushedAuthorizationRequestEndpoint == URL(string: provider.issuer.identifier + "/par"))
            #expect(!metadata.requirePushedAuthorizationRequests)
            metadata.document["require_pushed_authorization_requests"] = .bool(true)
            let client = try OAuthClient(metadata: metadata, clientID: "par-jwt", authentication: .privateKeyJWT(key: Self.key))
            #expect(client.pushesAuthorizationRequests)
            let credentials = try await client.signIn(
                redirectURI: URL(string: Self.redirect)!, scopes: ["openid"], userAgent: BrowserAgent())
            #expect(credentials.subject == "demo")
        }
    }

    @Test("a client that must push is refused a plain request, with an error redirect")
    func requiredPushRefusesPlainRequest() async throws {
        try await Self.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            let request = try client.authorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            let location = try await HeadlessBrowser().redirectLocation(of: request.url)
            let error = #expect(throws: AuthFlowError.self) { try request.validateCallback(location) }
            #expect(error?.oauth?.error == "invalid_request")
            #expect(error?.oauth?.errorDescription == "this client must push its authorization requests (PAR, RFC 9126)")
            #expect(
                error?.recovery == "The provider may require pushed authorization requests (RFC 9126) for this client: "
                    + "set OAuthClient.usesPushedAuthorizationRequests and sign in again.")
            #expect(error?.remedy == .usePushedAuthorizationRequests)

            // The same through signIn.
            let viaSignIn = await #expect(throws: AuthFlowError.self) {
                try await client.signIn(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"], userAgent: PlainAgent())
            }
            #expect(viaSignIn?.recovery == error?.recovery && viaSignIn?.remedy == .usePushedAuthorizationRequests)

            // No such advice from a provider without a PAR endpoint, or for another error.
            var metadata = try await ProviderMetadata.discover(issuer: provider.issuer)
            metadata.pushedAuthorizationRequestEndpoint = nil
            let withoutPAR = try OAuthClient(metadata: metadata, clientID: "par-required")
            let plain = try withoutPAR.authorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            let refusal = try await HeadlessBrowser().redirectLocation(of: plain.url)
            let noAdvice = #expect(throws: AuthFlowError.self) { try plain.validateCallback(refusal) }
            #expect(noAdvice?.oauth?.error == "invalid_request" && noAdvice?.recovery == nil && noAdvice?.remedy == nil)
            let denied = #expect(throws: AuthFlowError.self) {
                try request.validateCallback(
                    URL(string: Self.redirect + "?error=access_denied&state=\(request.state)&iss=\(provider.issuer.identifier)")!)
            }
            #expect(denied?.oauth?.error == "access_denied" && denied?.recovery == nil && denied?.remedy == nil)
        }
    }

    @Test("the client reads pushedRequestExpiresAt: an expired push is reported, and a refusal after it says why")
    func clientReadsTheExpiry() async throws {
        try await Self.with(pushedLifetime: 1) { provider in
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            client.usesPushedAuthorizationRequests = true
            let request = try await client.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            #expect(!request.pushedRequestHasExpired())
            try await Task.sleep(for: .milliseconds(1200))
            #expect(request.pushedRequestHasExpired())
            var callback = URLComponents(string: Self.redirect)!
            callback.queryItems = [
                URLQueryItem(name: "error", value: "invalid_request_uri"), URLQueryItem(name: "state", value: request.state),
                URLQueryItem(name: "iss", value: provider.issuer.identifier),
            ]
            let error = #expect(throws: AuthFlowError.self) { try request.validateCallback(callback.url!) }
            #expect(error?.oauth?.error == "invalid_request_uri")
            #expect(
                error?.recovery == "The pushed authorization request expired before the sign-in page was opened: sign in again "
                    + "(a new request is pushed), and open the page sooner.")
            #expect(error?.remedy == .signInAgain)
            // signIn pushes and hands the user agent a live request_uri.
            let credentials = try await client.signIn(
                redirectURI: URL(string: Self.redirect)!, scopes: ["openid"], userAgent: BrowserAgent())
            #expect(credentials.subject == "demo")
        }
    }

    @Test("an expired or another client's request_uri is refused")
    func expiredAndForeignRequestURI() async throws {
        try await Self.with(pushedLifetime: 1) { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "par-required")
            let request = try await client.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            let uri = try #require(Self.query(request.url)["request_uri"])
            let foreign = Wire(provider: provider).url("/authorize", [("client_id", "authflow-demo"), ("request_uri", uri)])
            #expect(try await HeadlessBrowser().get(foreign).status == 400)
            let other = try await client.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            try await Task.sleep(nanoseconds: 1_300_000_000)
            let expired = try await HeadlessBrowser().get(other.url)
            #expect(expired.status == 400)
            #expect(String(decoding: expired.body, as: UTF8.self).contains("invalid_request_uri"))
        }
    }

    @Test("PAR endpoint rules: authentication, registered redirect URI, no nested request_uri, checked parameters, POST only")
    func endpointRules() async throws {
        try await Self.with { provider in
            let wire = Wire(provider: provider)
            let good: [(String, String)] = [
                ("response_type", "code"), ("redirect_uri", Self.redirect), ("scope", "openid"),
                ("code_challenge", AuthorizationRequest.PKCE().challenge), ("code_challenge_method", "S256"),
            ]
            func refused(_ pairs: [(String, String)]) async throws -> (Int, String?, String?) {
                let response = try await wire.post("/par", pairs)
                let json = Wire.json(response)
                return (response.status, json["error"]?.stringValue, json["error_description"]?.stringValue)
            }
            var result = try await refused(good + [("client_id", "par-jwt")])
            #expect(result.0 == 400 && result.1 == "invalid_client")
            result = try await refused(
                good.filter { $0.0 != "redirect_uri" } + [("client_id", "par-required"), ("redirect_uri", "http://evil.example/cb")])
            #expect(result.1 == "invalid_request" && result.2 == "redirect_uri is not registered for this client")
            result = try await refused(good + [("client_id", "par-required"), ("request_uri", "urn:x")])
            #expect(result.1 == "invalid_request" && result.2 == "request_uri cannot be pushed (RFC 9126 §2.1)")
            result = try await refused(good.filter { $0.0 != "code_challenge" } + [("client_id", "par-required")])
            #expect(result.1 == "invalid_request" && result.2 == "code_challenge is required (PKCE, RFC 7636)")
            let created = try await wire.post("/par", good + [("client_id", "par-required")])
            #expect(created.status == 201)
            #expect(created.header("Cache-Control") == "no-store")
            #expect(try await wire.get("/par").status == 405)
        }
    }

    @Test("the engine: a refusal is oauth_error with the server's answer; no endpoint is a configuration error")
    func engineErrors() async throws {
        try await Self.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "par-jwt") // no key: authenticates as none
            let error = await #expect(throws: AuthFlowError.self) {
                _ = try await client.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            }
            #expect(error?.category == .oauthError)
            #expect(error?.oauth?.error == "invalid_client")
            #expect(error?.oauth?.errorDescription == "the client is registered for private_key_jwt and sent no client_assertion")

            var metadata = client.metadata
            metadata.pushedAuthorizationRequestEndpoint = nil
            let bare = try OAuthClient(metadata: metadata, clientID: "par-required")
            let missing = await #expect(throws: AuthFlowError.self) {
                _ = try await bare.pushedAuthorizationRequest(redirectURI: URL(string: Self.redirect)!, scopes: ["openid"])
            }
            #expect(missing?.category == .configuration)
        }
    }

    /// Follows the authorization URL, pushed or not.
    private struct PlainAgent: AuthorizationUserAgent {
        func authorize(_ request: AuthorizationRequest) async throws -> URL {
            try await HeadlessBrowser().redirectLocation(of: request.url)
        }
    }

    private struct BrowserAgent: AuthorizationUserAgent {
        func authorize(_ request: AuthorizationRequest) async throws -> URL {
            #expect(Set(Wire.parameters(of: request.url).keys) == ["client_id", "request_uri"])
            return try await HeadlessBrowser().redirectLocation(of: request.url)
        }
    }
}
#endif
