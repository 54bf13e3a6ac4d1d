import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Providers without discovery: endpoints, keys and issuer given by hand.
@Suite struct ExplicitEndpointsTests {
    static let issuer = "https://idp.example"

    /// A token endpoint and JWKS on 127.0.0.1 that issue an ES256 ID token for `nonce`.
    static func server(idTokenIssuer: String = issuer) throws -> LocalHTTPServer {
        let now = Date().timeIntervalSince1970
        let claims: [String: JSONMemberValue] = [
            "iss": .string(idTokenIssuer), "sub": .string("user-7"), "aud": .string("app"),
            "exp": .number(now + 300), "iat": .number(now - 5), "nonce": .string("N-1"),
        ]
        let idToken = try jws(claims, key: .ec256, alg: "ES256", kid: "k1")
        let jwks = jwksJSON([SigningKey.ec256.jwk(kid: "k1")])
        return try LocalHTTPServer { request in
            switch request.target {
            case "/token": .json(#"{"access_token":"AT","token_type":"Bearer","expires_in":60,"id_token":"\#(idToken)"}"#)
            case "/jwks": .json(jwks)
            default: LocalHTTPServer.Response(status: 404)
            }
        }
    }

    static func grant(_ server: LocalHTTPServer, issuer: Issuer?) -> AuthorizationGrant {
        AuthorizationGrant(
            code: "c", codeVerifier: fixedVerifier, redirectURI: url("http://127.0.0.1:9/cb"), clientID: "app",
            nonce: "N-1", issuer: issuer, requestedScopes: ["openid"])
    }

    @Test func jwksAndIssuerGiveAVerifiedSubject() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let metadata = ProviderMetadata(
            issuer: Issuer(stringLiteral: Self.issuer), authorizationEndpoint: url("https://idp.example/authorize"),
            tokenEndpoint: server.url("/token"), jwksURI: server.url("/jwks"))
        let client = try OAuthClient(metadata: metadata, clientID: "app")
        let credentials = try await client.exchange(Self.grant(server, issuer: Issuer(stringLiteral: Self.issuer)))
        #expect(credentials.subject == "user-7")
    }

    @Test func idTokenNamingAnotherIssuerIsRefused() async throws {
        let server = try Self.server(idTokenIssuer: "https://other.example")
        defer { server.stop() }
        let metadata = ProviderMetadata(
            issuer: Issuer(stringLiteral: Self.issuer), authorizationEndpoint: url("https://idp.example/authorize"),
            tokenEndpoint: server.url("/token"), jwksURI: server.url("/jwks"))
        let client = try OAuthClient(metadata: metadata, clientID: "app")
        await expectError(.idTokenInvalid, reason: .issuer) {
            try await client.exchange(Self.grant(server, issuer: Issuer(stringLiteral: Self.issuer)))
        }
    }

    @Test func withoutIssuerTheIDTokenIsNotUsed() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let metadata = ProviderMetadata(authorizationEndpoint: url("https://idp.example/authorize"), tokenEndpoint: server.url("/token"))
        let credentials = try await OAuthClient(metadata: metadata, clientID: "app").exchange(Self.grant(server, issuer: nil))
        #expect(credentials.subject == nil)
    }

    @Test func everyExplicitEndpointMustBeHTTPS() throws {
        let plain = url("http://idp.example/x")
        let cases: [ProviderMetadata] = [
            ProviderMetadata(
                authorizationEndpoint: url("https://idp.example/a"), tokenEndpoint: url("https://idp.example/t"), revocationEndpoint: plain),
            ProviderMetadata(
                authorizationEndpoint: url("https://idp.example/a"), tokenEndpoint: url("https://idp.example/t"), userinfoEndpoint: plain),
            ProviderMetadata(
                authorizationEndpoint: url("https://idp.example/a"), tokenEndpoint: url("https://idp.example/t"), endSessionEndpoint: plain),
            ProviderMetadata(
                issuer: Issuer(stringLiteral: Self.issuer), authorizationEndpoint: url("https://idp.example/a"),
                tokenEndpoint: url("https://idp.example/t"),
                jwksURI: plain),
        ]
        for metadata in cases {
            expectError(.configuration) { try OAuthClient(metadata: metadata, clientID: "app", transport: ScriptedTransport.unused()) }
        }
        // Loopback is the exception.
        let loopback = ProviderMetadata(
            authorizationEndpoint: url("https://idp.example/a"), tokenEndpoint: url("https://idp.example/t"),
            revocationEndpoint: url("http://127.0.0.1:8080/revoke"))
        _ = try OAuthClient(metadata: loopback, clientID: "app", transport: ScriptedTransport.unused())
        #expect(loopback.endpointList.map(\.name) == ["authorization_endpoint", "token_endpoint", "revocation_endpoint"])
    }

    @Test func missingUserinfoEndpointSaysWhereToNameIt() async throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let error = await expectError(.configuration) { try await client.userInfo(accessToken: "AT", expectedSubject: nil) }
        #expect(error?.recovery?.contains("ProviderMetadata.userinfoEndpoint") == true)
        #expect(error?.remedy == .giveTheUserInfoEndpoint)
    }

    // MARK: Info.plist

    static var base: [String: Any] {
        [
            "AuthorizeEndpoint": "https://idp.example/authorize", "TokenEndpoint": "https://idp.example/token",
            "ClientID": "app", "RedirectURI": "com.example.app:/cb",
        ]
    }

    @Test func plistExplicitEndpoints() throws {
        var dictionary = Self.base
        dictionary["RevocationEndpoint"] = "https://idp.example/revoke"
        dictionary["UserInfoEndpoint"] = "https://idp.example/userinfo"
        dictionary["EndSessionEndpoint"] = "https://idp.example/logout"
        dictionary["JWKSURI"] = "https://idp.example/jwks"
        dictionary["IDTokenIssuer"] = Self.issuer
        let configuration = try ClientConfiguration(dictionary: dictionary)
        guard case .metadata(let metadata) = configuration.provider else {
            Issue.record("expected full metadata, got \(configuration.provider)")
            return
        }
        #expect(metadata.issuer?.identifier == Self.issuer)
        #expect(metadata.revocationEndpoint == url("https://idp.example/revoke"))
        #expect(metadata.userinfoEndpoint == url("https://idp.example/userinfo"))
        #expect(metadata.endSessionEndpoint == url("https://idp.example/logout"))
        #expect(metadata.jwksURI == url("https://idp.example/jwks"))
    }

    @Test func plistKeyMistakesNameTheKey() throws {
        var half = Self.base
        half["JWKSURI"] = "https://idp.example/jwks"
        let error = expectError(.configuration) { try ClientConfiguration(dictionary: half) }
        #expect(error?.recovery == "Add both JWKSURI and IDTokenIssuer to verify ID tokens, or neither.")

        var withIssuer = Self.base
        withIssuer.removeValue(forKey: "AuthorizeEndpoint")
        withIssuer.removeValue(forKey: "TokenEndpoint")
        withIssuer["Issuer"] = Self.issuer
        withIssuer["RevocationEndpoint"] = "https://idp.example/revoke"
        let mixed = expectError(.configuration) { try ClientConfiguration(dictionary: withIssuer) }
        #expect(mixed?.recovery?.contains("Remove RevocationEndpoint") == true)

        var noClient = Self.base
        noClient.removeValue(forKey: "ClientID")
        let missing = expectError(.configuration) { try ClientConfiguration(dictionary: noClient) }
        #expect(missing?.recovery?.contains("Add the ClientID key") == true)
    }
}

/// How a token response's `scope` is read.
@Suite struct ScopeListTests {
    @Test(arguments: [
        ("openid profile email", ["openid", "profile", "email"]),
        ("read:user,user:email", ["read:user", "user:email"]), // GitHub
        ("repo", ["repo"]),
        ("a,b c", ["a,b", "c"]), // a space means RFC 6749 separation, commas then belong to the scope
        ("a,,b,", ["a", "b"]),
        ("", []),
    ])
    func scopeValues(_ value: String, _ expected: [String]) throws {
        #expect(TokenResponse.scopes(from: value) == expected)
        let response = try TokenResponse(
            json: json(#"{"access_token":"x","token_type":"bearer","scope":"\#(value)"}"#), requestedScopes: ["z"])
        #expect(response.scopes == expected)
    }
}

/// Configuration errors say what to change.
@Suite struct RecoveryTextTests {
    @Test func providerWithoutDiscoveryPointsToExplicitEndpoints() async {
        let transport = ScriptedTransport { _ in HTTPTransportResponse(status: 404) }
        let error = await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(issuer: Issuer("https://github.example"), transport: transport)
        }
        #expect(error?.recovery?.contains("ProviderMetadata(issuer:authorizationEndpoint:tokenEndpoint:)") == true)
        #expect(error?.remedy == .checkTheIssuer)
    }

    @Test func issuerWithQuerySaysWhatTheIssuerIs() {
        let error = expectError(.configuration) {
            try ProviderMetadata.discoveryURLs(for: Issuer("https://idp.example/?tenant=x" as String))
        }
        #expect(error?.recovery?.hasPrefix("Give the issuer without") == true)
        #expect(error?.remedy == .giveTheIssuerURL)
    }

    @Test func pkceDisabledAtTheProviderSaysWhereToEnableIt() throws {
        var meta = metadata()
        meta.codeChallengeMethodsSupported = ["plain"]
        let client = try OAuthClient(metadata: meta, clientID: "app", transport: ScriptedTransport.unused())
        let error = expectError(.configuration) { try client.authorizationRequest(redirectURI: url("http://127.0.0.1/cb"), scopes: []) }
        #expect(error?.recovery == "Enable PKCE (S256) for this client in the provider's settings; AuthFlow always sends it.")
    }

    @Test func scopeAsParameterPointsToScopes() throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let error = expectError(.configuration) {
            try client.authorizationRequest(
                redirectURI: url("http://127.0.0.1/cb"), scopes: [], options: .init(additionalParameters: [.init("scope", "x")]))
        }
        #expect(error?.recovery == "Give scopes as the scopes argument, not as a parameter.")
        #expect(error?.remedy == .passScopesSeparately)
    }
}

/// Token responses that carry an error with HTTP 200.
@Suite struct ErrorWithSuccessStatusTests {
    @Test func githubStyleErrorIsAnOAuthError() {
        // https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/
        let body = #"{"error":"bad_verification_code","error_description":"The code passed is incorrect or expired.","error_uri":"/x"}"#
        let error = expectError(.oauthError) { try TokenResponse(json: json(body), requestedScopes: []) }
        #expect(
            error?.oauth
                == OAuthErrorResponse(
                    error: "bad_verification_code", errorDescription: "The code passed is incorrect or expired.", errorURI: "/x"))
    }

    @Test func slackStyleErrorIsAnOAuthError() {
        let error = expectError(.oauthError) { try TokenResponse(json: json(#"{"ok":false,"error":"invalid_code"}"#), requestedScopes: []) }
        #expect(error?.oauth?.error == "invalid_code")
    }
}
