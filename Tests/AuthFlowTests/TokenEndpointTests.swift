import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Code exchange through `OAuthClient.exchange(_:)` and the real
/// `URLSessionTransport`, against a local HTTP server on 127.0.0.1.
@Suite struct TokenEndpointTests {
    static let okBody = #"{"access_token":"AT-1","token_type":"Bearer","expires_in":60,"refresh_token":"RT-1","scope":"read"}"#
    static let redirect = url("http://127.0.0.1:8765/callback")

    static func grant(clientID: String = "app", scopes: [String] = ["read"], code: String = "code+/=&%é") -> AuthorizationGrant {
        AuthorizationGrant(code: code, codeVerifier: fixedVerifier, redirectURI: redirect, clientID: clientID, requestedScopes: scopes)
    }

    static func client(_ server: LocalHTTPServer, clientID: String = "app", authentication: ClientAuthentication = .none) throws
        -> OAuthClient
    {
        try OAuthClient(
            metadata: ProviderMetadata(
                authorizationEndpoint: url("https://idp.example/authorize"),
                tokenEndpoint: server.url("/token")),
            clientID: clientID, authentication: authentication, transport: URLSessionTransport(), timeout: 5)
    }

    @Test func bodyIsFormEncodedAuthorizationCodeGrant() async throws {
        let server = try LocalHTTPServer { _ in .json(Self.okBody) }
        defer { server.stop() }
        let credentials = try await Self.client(server).exchange(Self.grant())
        #expect(credentials.accessToken == "AT-1")
        #expect(credentials.token.refreshToken == "RT-1")
        #expect(credentials.scopes == ["read"])
        #expect(credentials.idToken == nil)
        #expect(credentials.clientID == "app")

        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.target == "/token")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header("Authorization") == nil)
        let pairs = try #require(FormEncoding.decode(request.bodyText))
        #expect(pairs.map(\.0) == ["grant_type", "code", "redirect_uri", "code_verifier", "client_id"])
        let form = formDictionary(request.bodyText)
        #expect(form["grant_type"] == "authorization_code")
        #expect(form["code"] == "code+/=&%é")
        #expect(form["redirect_uri"] == "http://127.0.0.1:8765/callback")
        #expect(form["code_verifier"] == fixedVerifier)
        #expect(form["client_id"] == "app")
        #expect(request.bodyText.contains("code=code%2B%2F%3D%26%25%C3%A9"))
    }

    @Test func invalidGrantIsOAuthError() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"error":"invalid_grant","error_description":"x"}"#, status: 400) }
        defer { server.stop() }
        let error = await expectError(.oauthError) { try await Self.client(server).exchange(Self.grant()) }
        #expect(error?.oauth?.error == "invalid_grant")
        #expect(error?.oauth?.errorDescription == "x")
    }

    @Test func invalidClientIsOAuthError() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"error":"invalid_client"}"#, status: 401) }
        defer { server.stop() }
        let error = await expectError(.oauthError) { try await Self.client(server).exchange(Self.grant()) }
        #expect(error?.oauth?.error == "invalid_client")
    }

    @Test func serviceUnavailableWithHTMLIsServerError() async throws {
        let server = try LocalHTTPServer { _ in
            .init(status: 503, headers: [("Content-Type", "text/html")], body: Data("<html>down</html>".utf8))
        }
        defer { server.stop() }
        let error = await expectError(.oauthError) { try await Self.client(server).exchange(Self.grant()) }
        #expect(error?.oauth?.error == "server_error")
    }

    @Test func redirectIsInvalidResponseAndNotFollowed() async throws {
        let server = try LocalHTTPServer { request in
            if request.target == "/token" {
                return .init(status: 302, headers: [("Location", "/elsewhere")])
            }
            return .json(Self.okBody)
        }
        defer { server.stop() }
        await expectError(.invalidResponse) { try await Self.client(server).exchange(Self.grant()) }
        #expect(server.requests.map(\.target) == ["/token"])
    }

    @Test func badRequestWithoutJSONIsInvalidResponse() async throws {
        let server = try LocalHTTPServer { _ in .init(status: 400, body: Data("bad request".utf8)) }
        defer { server.stop() }
        await expectError(.invalidResponse) { try await Self.client(server).exchange(Self.grant()) }
    }

    @Test func errorInA200BodyIsOAuthError() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"error":"invalid_grant"}"#) }
        defer { server.stop() }
        let error = await expectError(.oauthError) { try await Self.client(server).exchange(Self.grant()) }
        #expect(error?.oauth?.error == "invalid_grant")
    }

    @Test func malformed200IsInvalidResponse() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"access_token":"AT","token_type":"mac"}"#) }
        defer { server.stop() }
        await expectError(.invalidResponse) { try await Self.client(server).exchange(Self.grant()) }
    }

    @Test func grantForAnotherClientIsConfigurationWithoutRequest() async throws {
        let server = try LocalHTTPServer { _ in .json(Self.okBody) }
        defer { server.stop() }
        await expectError(.configuration) { try await Self.client(server).exchange(Self.grant(clientID: "other")) }
        #expect(server.requests.isEmpty)
    }

    @Test func grantWithInvalidVerifierIsConfigurationWithoutRequest() async throws {
        let transport = ScriptedTransport.unused()
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: transport)
        var grant = Self.grant()
        grant.codeVerifier = "short"
        await expectError(.configuration) { try await client.exchange(grant) }
        #expect(transport.requests.isEmpty)
    }

    @Test func grantFromAnotherIssuerIsIssuerMismatchWithoutRequest() async throws {
        let transport = ScriptedTransport.unused()
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: transport)
        var grant = Self.grant()
        grant.issuer = "https://evil.example"
        await expectError(.issuerMismatch) { try await client.exchange(grant) }
        #expect(transport.requests.isEmpty)
    }

    @Test func openidWithoutIDTokenIsInvalidResponse() async throws {
        let transport = ScriptedTransport { _ in .json(Self.okBody) }
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: transport)
        await expectError(.invalidResponse) { try await client.exchange(Self.grant(scopes: ["openid"])) }
    }

    @Test func requestCarriesClientTimeout() async throws {
        let transport = ScriptedTransport { _ in .json(Self.okBody) }
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: transport, timeout: 12)
        _ = try await client.exchange(Self.grant())
        #expect(transport.requests.map(\.timeout) == [12])
        #expect(transport.urls == ["https://idp.example/token"])
    }
}

/// Servers sometimes echo what they were sent; AuthFlow scrubs it.
@Suite("Token endpoint error redaction")
struct TokenEndpointRedactionTests {
    @Test("an error_description that echoes the code, verifier or client secret is redacted")
    func echoedSecrets() async throws {
        let transport = ScriptedTransport { request in
            let body = String(decoding: request.body ?? Data(), as: UTF8.self)
            return .json(#"{"error":"invalid_grant","error_description":"rejected \#(body)"}"#, status: 400)
        }
        let client = try OAuthClient(
            metadata: metadata(), clientID: "app", authentication: .clientSecretPost(secret: "S3CRET-value"), transport: transport)
        let grant = AuthorizationGrant(
            code: "CODE-1234", codeVerifier: fixedVerifier, redirectURI: url("com.example.app:/cb"), clientID: "app")
        let error = await expectError(.oauthError) { try await client.exchange(grant) }
        let text = error?.description ?? ""
        #expect(error?.oauth?.error == "invalid_grant")
        for secret in ["CODE-1234", fixedVerifier, "S3CRET-value"] { #expect(!text.contains(secret)) }
        #expect(text.contains("<redacted>"))
    }
}
