#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import Logging
import AuthFlowProvider
import ExampleBackend
import Foundation
import ServiceLifecycle
import Testing

/// The flows of the seed guides, run the way an iOS app runs them: a
/// custom-scheme redirect URI, a user agent that behaves like
/// ASWebAuthenticationSession (it returns the URL the provider redirected
/// to), and the engine doing every check.
@Suite("Seed flows against the embedded provider")
struct SeedFlowTests {
    static let zoomRedirect = "com.example.zoom:/oauth2redirect"
    static let zenKeyRedirect = "com.example.zenkey:/cb"

    static func configuration() -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.clients += [
            ProviderClient(id: "com.example.zoom", redirectURIs: [zoomRedirect]),
            ProviderClient(
                id: "zoom-confidential", secret: "zoom+secret/=", authentication: .clientSecretBasic, redirectURIs: [zoomRedirect]),
            ProviderClient(
                id: "com.example.zenkey", secret: "backend-secret", authentication: .clientSecretBasic, redirectURIs: [zenKeyRedirect]),
        ]
        // ZenKey's levels: a request for a3 gets acr a3 in its tokens.
        configuration.acrValuesSupported = ["a1", "a3"]
        return configuration
    }

    static func withProvider<T>(_ body: (EmbeddedProvider) async throws -> T) async throws -> T {
        let provider = try await EmbeddedProvider.start(configuration())
        do {
            let value = try await body(provider)
            await provider.stop()
            return value
        } catch {
            await provider.stop()
            throw error
        }
    }

    /// Behaves like ASWebAuthenticationSession with a custom scheme: follows
    /// the provider to its redirect and hands back that URL, unvalidated.
    struct CustomSchemeAgent: AuthorizationUserAgent {
        func authorize(_ request: AuthorizationRequest) async throws -> URL {
            try await HeadlessBrowser().redirectLocation(of: request.url)
        }
    }

    @Test("Zoom: public client with PKCE, then REST calls with a fresh bearer token; a revoked token is refreshed once")
    func zoomPublicClient() async throws {
        try await Self.withProvider { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "com.example.zoom")
            let credentials = try await client.signIn(
                redirectURI: URL(string: Self.zoomRedirect)!,
                scopes: ["openid", "profile", "offline_access"], userAgent: CustomSchemeAgent())
            let session = AuthSession(client: client, credentials: credentials)
            let api = try #require(client.metadata.userinfoEndpoint) // the REST endpoint of the seed, played by userinfo

            let first = try await session.send(HTTPTransportRequest(method: "GET", url: api))
            #expect(first.status == 200)
            #expect(try Self.object(first.body)["sub"] == .string("demo"))

            try await client.revoke(credentials.accessToken, hint: .accessToken)
            let second = try await session.send(HTTPTransportRequest(method: "GET", url: api))
            #expect(second.status == 200, "the 401 invalid_token was answered by one refresh and one retry")
            let renewed = try #require(try await session.currentCredentials)
            #expect(renewed.accessToken != credentials.accessToken)
            #expect(renewed.token.refreshToken != credentials.token.refreshToken, "the provider rotated the refresh token")
        }
    }

    @Test("Zoom: confidential exchange with client_secret_basic plus PKCE; a wrong secret is invalid_client")
    func zoomConfidential() async throws {
        try await Self.withProvider { provider in
            let client = try await OAuthClient(
                issuer: provider.issuer, clientID: "zoom-confidential",
                authentication: .clientSecretBasic(secret: "zoom+secret/="))
            let credentials = try await client.signIn(
                redirectURI: URL(string: Self.zoomRedirect)!, scopes: ["openid"],
                userAgent: CustomSchemeAgent())
            #expect(credentials.subject == "demo")

            let wrong = try await OAuthClient(
                issuer: provider.issuer, clientID: "zoom-confidential",
                authentication: .clientSecretBasic(secret: "wrong"), timeout: 10)
            let error = await #expect(throws: AuthFlowError.self) {
                try await wrong.signIn(redirectURI: URL(string: Self.zoomRedirect)!, scopes: ["openid"], userAgent: CustomSchemeAgent())
            }
            #expect(error?.category == .oauthError)
            #expect(error?.oauth?.error == "invalid_client")
        }
    }

    @Test("SecureAuth: the granted scopes decide which features the app offers")
    func scopeDrivenFeatures() async throws {
        try await Self.withProvider { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "com.example.zoom")
            let credentials = try await client.signIn(
                redirectURI: URL(string: Self.zoomRedirect)!, scopes: ["openid", "profile"],
                userAgent: CustomSchemeAgent())
            #expect(credentials.hasScope("profile"))
            #expect(!credentials.hasScope("email"))
            // A scope the client is not allowed: the provider refuses it, and the app learns why.
            let error = await #expect(throws: AuthFlowError.self) {
                try await client.signIn(
                    redirectURI: URL(string: Self.zoomRedirect)!, scopes: ["openid", "payments"],
                    userAgent: CustomSchemeAgent())
            }
            #expect(error?.oauth?.error == "invalid_scope")
        }
    }

    @Test("ZenKey: the app authorizes, the backend redeems the handed-over grant, verifies the ID token and reads userinfo")
    func zenKeyBackendHandoff() async throws {
        try await Self.withProvider { provider in
            // App side: authorization only; no secret in the app.
            let app = try await OAuthClient(issuer: provider.issuer, clientID: "com.example.zenkey")
            var options = AuthorizationOptions(prompt: ["consent"], acrValues: ["a3"])
            try options.setContext("Sign in to Example Bank to link your account")
            try options.setCorrelationID("link-7f3a")
            let request = try app.authorizationRequest(
                redirectURI: URL(string: Self.zenKeyRedirect)!,
                scopes: ["openid", "profile", "email"], options: options)
            #expect(request.url.query?.contains("correlation_id=link-7f3a") == true)
            let grant = try request.validateCallback(try await CustomSchemeAgent().authorize(request))
            #expect(grant.nonce == request.nonce)
            // What the request sent beside the code travels with it to the backend.
            #expect(grant.acrValues == ["a3"])
            #expect(grant.context == "Sign in to Example Bank to link your account")
            #expect(grant.correlationID == "link-7f3a")
            let handedOver = try JSONEncoder().encode(grant)
            let sent = try #require(try JSONSerialization.jsonObject(with: handedOver) as? [String: Any])
            #expect(sent["acr_values"] as? [String] == ["a3"])
            #expect(sent["context"] as? String == "Sign in to Example Bank to link your account")
            #expect(sent["correlation_id"] as? String == "link-7f3a")

            // Backend side: a Hummingbird server with the client secret.
            let backendClient = try await OAuthClient(
                issuer: provider.issuer, clientID: "com.example.zenkey",
                authentication: .clientSecretBasic(secret: "backend-secret"))
            try await Self.withBackend(HandoffBackend(client: backendClient)) { endpoint in
                let (status, body) = try await Self.post(handedOver, to: endpoint)
                #expect(status == 200)
                let user = try JSONDecoder().decode(SignedInUser.self, from: body)
                #expect(user.email == "demo@example.com")
                #expect(user.scopes.contains("email"))
                #expect(user.correlationID == "link-7f3a")
                #expect(user.authenticationContextClass == "a3")
                // The pairwise sub stays on the backend: not a member, not a value.
                let answer = try Self.object(body)
                #expect(answer["sub"] == nil && answer["subject"] == nil)
                #expect(!String(decoding: body, as: UTF8.self).contains("\"demo\""))

                // The same grant again: the provider refuses the used code.
                let (again, refusal) = try await Self.post(handedOver, to: endpoint)
                #expect(again == 400)
                #expect(try Self.object(refusal)["oauth_error"] == .string("invalid_grant"))
            }
        }
    }

    @Test("ZenKey: a grant whose nonce was swapped is refused by the backend's ID-token check")
    func zenKeyWrongNonce() async throws {
        try await Self.withProvider { provider in
            let app = try await OAuthClient(issuer: provider.issuer, clientID: "com.example.zenkey")
            let request = try app.authorizationRequest(redirectURI: URL(string: Self.zenKeyRedirect)!, scopes: ["openid"])
            var grant = try request.validateCallback(try await CustomSchemeAgent().authorize(request))
            grant.nonce = "not-the-nonce-that-was-sent"
            let backend = HandoffBackend(
                client: try await OAuthClient(
                    issuer: provider.issuer, clientID: "com.example.zenkey",
                    authentication: .clientSecretBasic(secret: "backend-secret")))
            let error = await #expect(throws: AuthFlowError.self) { try await backend.complete(grant) }
            #expect(error?.category == .idTokenInvalid)
            #expect(error?.reason == .nonce)
        }
    }

    @Test(
        "the provider claims the first acr the request names that it supports, in the ID token and the access token",
        arguments: [(["a9", "a3", "a1"], "a3"), (["a9"], nil), ([], nil)] as [([String], String?)])
    func acrIssued(_ asked: [String], _ expected: String?) async throws {
        try await Self.withProvider { provider in
            let discovery = try await URLSessionTransport().send(
                HTTPTransportRequest(
                    method: "GET", url: URL(string: provider.issuer.identifier + "/.well-known/openid-configuration")!, timeout: 10))
            #expect(try Self.object(discovery.body)["acr_values_supported"] == .array([.string("a1"), .string("a3")]))
            let app = try await OAuthClient(issuer: provider.issuer, clientID: "com.example.zoom")
            let credentials = try await app.signIn(
                redirectURI: URL(string: Self.zoomRedirect)!, scopes: ["openid"], options: AuthorizationOptions(acrValues: asked),
                userAgent: CustomSchemeAgent())
            #expect(credentials.idToken?.authenticationContextClass == expected)
            let payload = try #require(credentials.accessToken.split(separator: ".").dropFirst().first)
            let claims = try JSONDecoder().decode([String: JSONMemberValue].self, from: Data(Base64URL.decode(payload) ?? []))
            #expect(claims["acr"] == expected.map(JSONMemberValue.string))
        }
    }

    @Test("ZenKey: a context over 280 characters is refused before anything is sent")
    func zenKeyContextLimit() {
        var options = AuthorizationOptions()
        #expect(throws: AuthFlowError.self) { try options.setContext(String(repeating: "x", count: 281)) }
        #expect(options.additionalParameters.isEmpty)
    }

    @Test(
        "ZenKey: a correlation ID is 1 to 128 visible ASCII characters, refused otherwise before anything is sent",
        arguments: ["", String(repeating: "x", count: 129), "two words", "line\nbreak", "caf\u{E9}"])
    func zenKeyCorrelationIDRules(_ id: String) {
        var options = AuthorizationOptions()
        let error = #expect(throws: AuthFlowError.self) { try options.setCorrelationID(id) }
        #expect(error?.category == .configuration)
        #expect(error?.message == "a correlation ID must be 1 to 128 visible ASCII characters")
        #expect(options.additionalParameters.isEmpty)
    }

    static func withBackend(_ backend: HandoffBackend, _ body: (URL) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let group = ServiceGroup(
            services: [
                backend.application { port in
                    continuation.yield(port)
                    continuation.finish()
                }
            ],
            logger: .init(label: "backend"))
        let running = Task {
            try? await group.run()
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        do {
            try await body(URL(string: "http://127.0.0.1:\(port)/auth/complete")!)
        } catch {
            await group.triggerGracefulShutdown()
            await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        await running.value
    }

    static func object(_ data: Data) throws -> [String: JSONMemberValue] {
        try JSONDecoder().decode([String: JSONMemberValue].self, from: data)
    }

    static func post(_ body: Data, to url: URL) async throws -> (Int, Data) {
        let response = try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/json")], body: body, timeout: 10))
        return (response.status, response.body)
    }
}
#endif
