import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct AuthorizationRequestTests {
    let redirect = url("http://127.0.0.1:8765/callback")

    func client(_ metadata: ProviderMetadata = metadata(), clientID: String = "app") throws -> OAuthClient {
        try OAuthClient(metadata: metadata, clientID: clientID, transport: ScriptedTransport.unused())
    }

    func query(_ request: AuthorizationRequest) throws -> [(String, String)] {
        let components = try #require(URLComponents(url: request.url, resolvingAgainstBaseURL: false))
        return try #require(FormEncoding.decode(components.percentEncodedQuery ?? ""))
    }

    @Test func coreParameters() throws {
        let request = try client().authorizationRequest(redirectURI: redirect, scopes: ["openid", "profile"])
        let pairs = try query(request)
        let names = pairs.map(\.0)
        #expect(
            names == ["response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method"])
        let values = Dictionary(uniqueKeysWithValues: pairs)
        #expect(values["response_type"] == "code")
        #expect(values["client_id"] == "app")
        #expect(values["redirect_uri"] == "http://127.0.0.1:8765/callback")
        #expect(values["scope"] == "openid profile")
        #expect(values["state"] == request.state)
        #expect(request.state.count == 43)
        #expect(values["nonce"] == request.nonce)
        #expect(request.nonce?.count == 43)
        #expect(values["code_challenge"] == AuthorizationRequest.PKCE.challenge(for: request.pkce.verifier))
        #expect(values["code_challenge_method"] == "S256")
        #expect(!request.url.absoluteString.contains(request.pkce.verifier))
        #expect(request.url.scheme == "https")
        #expect(request.url.host == "idp.example")
        #expect(request.url.path == "/authorize")
        #expect(request.redirectURI == redirect)
        #expect(request.clientID == "app")
        #expect(request.scopes == ["openid", "profile"])
        #expect(request.issuer == "https://idp.example")
    }

    @Test func stateNonceAndVerifierAreFreshEachTime() throws {
        let client = try client()
        let a = try client.authorizationRequest(redirectURI: redirect, scopes: ["openid"])
        let b = try client.authorizationRequest(redirectURI: redirect, scopes: ["openid"])
        #expect(a.state != b.state)
        #expect(a.nonce != b.nonce)
        #expect(a.pkce.verifier != b.pkce.verifier)
        #expect(a.state != a.nonce)
    }

    @Test func nonceOnlyWithOpenID() throws {
        let request = try client().authorizationRequest(redirectURI: redirect, scopes: ["profile", "email"])
        #expect(request.nonce == nil)
        #expect(try !query(request).contains { $0.0 == "nonce" })
        let empty = try client().authorizationRequest(redirectURI: redirect, scopes: [])
        #expect(try !query(empty).contains { $0.0 == "scope" || $0.0 == "nonce" })
    }

    @Test func options() throws {
        let options = AuthorizationOptions(
            prompt: ["login", "consent"], loginHint: "user@example.com", maxAge: 300,
            acrValues: ["urn:a", "urn:b"], uiLocales: ["fr-CA", "en"],
            additionalParameters: [.init("z_extra", "1"), .init("a_extra", "2"), .init("audience", "api")])
        let request = try client().authorizationRequest(redirectURI: redirect, scopes: ["openid"], options: options)
        let pairs = try query(request)
        let tail = Array(pairs.suffix(8))
        #expect(tail.map(\.0) == ["prompt", "login_hint", "max_age", "acr_values", "ui_locales", "z_extra", "a_extra", "audience"])
        #expect(tail.map(\.1) == ["login consent", "user@example.com", "300", "urn:a urn:b", "fr-CA en", "1", "2", "api"])
        #expect(request.maxAge == 300)
    }

    @Test func negativeMaxAgeIsConfiguration() throws {
        let client = try client()
        expectError(.configuration) {
            try client.authorizationRequest(redirectURI: redirect, scopes: ["openid"], options: .init(maxAge: -1))
        }
    }

    @Test(arguments: AuthorizationOptions.reservedParameters.sorted())
    func reservedNameAsExtraParameterIsConfiguration(_ name: String) throws {
        let client = try client()
        expectError(.configuration) {
            try client.authorizationRequest(
                redirectURI: redirect, scopes: ["openid"],
                options: .init(additionalParameters: [.init(name, "x")]))
        }
    }

    @Test func reservedSetIsComplete() {
        #expect(
            AuthorizationOptions.reservedParameters == [
                "response_type", "client_id", "redirect_uri", "state", "nonce", "code_challenge", "code_challenge_method", "scope",
            ])
    }

    @Test func duplicateOrEmptyExtraNameIsConfiguration() throws {
        let client = try client()
        expectError(.configuration) {
            try client.authorizationRequest(
                redirectURI: redirect, scopes: [], options: .init(additionalParameters: [.init("a", "1"), .init("a", "2")]))
        }
        expectError(.configuration) {
            try client.authorizationRequest(
                redirectURI: redirect, scopes: [], options: .init(prompt: ["login"], additionalParameters: [.init("prompt", "none")]))
        }
        expectError(.configuration) {
            try client.authorizationRequest(redirectURI: redirect, scopes: [], options: .init(additionalParameters: [.init("", "1")]))
        }
    }

    @Test func specialCharactersArePercentEncodedAndSurvive() throws {
        let tricky = "a+b/c=d&e%f g"
        let request = try client(clientID: tricky).authorizationRequest(
            redirectURI: url("http://127.0.0.1:8765/cb?x=1"), scopes: ["openid"],
            options: .init(additionalParameters: [.init("extra", tricky), .init("uni", "é😀")]))
        let values = Dictionary(uniqueKeysWithValues: try query(request))
        #expect(values["client_id"] == tricky)
        #expect(values["extra"] == tricky)
        #expect(values["uni"] == "é😀")
        #expect(values["redirect_uri"] == "http://127.0.0.1:8765/cb?x=1")
        let raw = request.url.absoluteString
        #expect(raw.contains("client_id=a%2Bb%2Fc%3Dd%26e%25f%20g"))
        #expect(raw.contains("extra=a%2Bb%2Fc%3Dd%26e%25f%20g"))
        #expect(raw.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcb%3Fx%3D1"))
        #expect(raw.contains("uni=%C3%A9%F0%9F%98%80"))
        #expect(!raw.contains("+"))
    }

    @Test func endpointQueryIsKept() throws {
        let request = try client(metadata(authorization: "https://ex.com/auth?tenant=1")).authorizationRequest(
            redirectURI: redirect, scopes: ["openid"])
        let pairs = try query(request)
        #expect(pairs.first?.0 == "tenant")
        #expect(pairs.first?.1 == "1")
        #expect(pairs.dropFirst().first?.0 == "response_type")
        #expect(request.url.absoluteString.hasPrefix("https://ex.com/auth?tenant=1&response_type=code&"))
    }

    @Test func endpointQueryClashingWithAParameterIsConfiguration() throws {
        let client = try client(metadata(authorization: "https://ex.com/auth?client_id=other"))
        expectError(.configuration) { try client.authorizationRequest(redirectURI: redirect, scopes: ["openid"]) }
    }

    @Test func providerWithoutS256IsConfiguration() throws {
        var plainOnly = metadata()
        plainOnly.codeChallengeMethodsSupported = ["plain"]
        let client = try client(plainOnly)
        expectError(.configuration) { try client.authorizationRequest(redirectURI: redirect, scopes: ["openid"]) }

        var both = metadata()
        both.codeChallengeMethodsSupported = ["plain", "S256"]
        _ = try self.client(both).authorizationRequest(redirectURI: redirect, scopes: ["openid"])
    }

    @Test(arguments: ["relative/path", "http://127.0.0.1:1/cb#frag"])
    func badRedirectURIIsConfiguration(_ redirect: String) throws {
        let client = try client()
        expectError(.configuration) { try client.authorizationRequest(redirectURI: url(redirect), scopes: ["openid"]) }
    }

    @Test(arguments: [[""], ["open id"], ["openid", ""]])
    func badScopeIsConfiguration(_ scopes: [String]) throws {
        let client = try client()
        expectError(.configuration) { try client.authorizationRequest(redirectURI: redirect, scopes: scopes) }
    }

    @Test func descriptionHidesSecrets() throws {
        let request = try client().authorizationRequest(redirectURI: redirect, scopes: ["openid"])
        let text = "\(request)"
        #expect(!text.contains(request.state))
        #expect(!text.contains(try #require(request.nonce)))
        #expect(!text.contains(request.pkce.verifier))
        #expect(text.contains("app"))
    }

    @Test func codableRoundTrip() throws {
        let request = try client().authorizationRequest(redirectURI: redirect, scopes: ["openid"], options: .init(maxAge: 10))
        let decoded = try JSONDecoder().decode(AuthorizationRequest.self, from: JSONEncoder().encode(request))
        #expect(decoded.url == request.url)
        #expect(decoded.state == request.state)
        #expect(decoded.nonce == request.nonce)
        #expect(decoded.pkce == request.pkce)
        #expect(decoded.maxAge == 10)
    }
}
