import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct CallbackValidationTests {
    static let redirect = "http://127.0.0.1:8765/callback"

    func request(
        issParameter: Bool = false, issuer: Issuer? = "https://idp.example", scopes: [String] = ["openid"],
        options: AuthorizationOptions = .init()
    ) throws -> AuthorizationRequest {
        var provider = metadata(issuer: issuer)
        provider.authorizationResponseIssParameterSupported = issParameter
        let client = try OAuthClient(metadata: provider, clientID: "app", transport: ScriptedTransport.unused())
        return try client.authorizationRequest(redirectURI: url(Self.redirect), scopes: scopes, options: options)
    }

    func callback(_ query: [(String, String)], base: String = redirect) -> URL {
        url(base + "?" + FormEncoding.encode(query))
    }

    @Test func successReturnsGrant() throws {
        let request = try request(options: .init(maxAge: 120))
        let grant = try request.validateCallback(callback([("code", "the+code/="), ("state", request.state)]))
        #expect(grant.code == "the+code/=")
        #expect(grant.codeVerifier == request.pkce.verifier)
        #expect(grant.redirectURI == url(Self.redirect))
        #expect(grant.clientID == "app")
        #expect(grant.nonce == request.nonce)
        #expect(grant.nonce != nil)
        #expect(grant.issuer == "https://idp.example")
        #expect(grant.requestedScopes == ["openid"])
        #expect(grant.maxAge == 120)
    }

    @Test(arguments: [
        "http://localhost:8765/callback", "http://127.0.0.1:8766/callback", "http://127.0.0.1:8765/other",
        "https://127.0.0.1:8765/callback", "http://127.0.0.1/callback", "http://127.0.0.1:8765/callback/x",
    ])
    func wrongEndpointIsInvalidResponseEvenWithWrongState(_ base: String) throws {
        let request = try request()
        expectError(.invalidResponse) { try request.validateCallback(callback([("code", "c"), ("state", "wrong")], base: base)) }
        expectError(.invalidResponse) { try request.validateCallback(callback([("code", "c"), ("state", request.state)], base: base)) }
    }

    @Test func hostAndSchemeCaseDoNotMatter() throws {
        let request = try request()
        _ = try request.validateCallback(callback([("code", "c"), ("state", request.state)], base: "HTTP://127.0.0.1:8765/callback"))
    }

    @Test func missingStateIsStateMismatch() throws {
        let request = try request()
        expectError(.stateMismatch) { try request.validateCallback(callback([("code", "c")])) }
        expectError(.stateMismatch) { try request.validateCallback(url(Self.redirect)) }
    }

    @Test func wrongStateIsStateMismatch() throws {
        let request = try request()
        expectError(.stateMismatch) { try request.validateCallback(callback([("code", "c"), ("state", "x" + request.state)])) }
        expectError(.stateMismatch) {
            try request.validateCallback(callback([("code", "c"), ("state", String(request.state.dropLast()))]))
        }
        expectError(.stateMismatch) { try request.validateCallback(callback([("code", "c"), ("state", "")])) }
    }

    @Test func stateIsCheckedBeforeError() throws {
        let request = try request()
        expectError(.stateMismatch) {
            try request.validateCallback(callback([("error", "access_denied"), ("state", "forged")]))
        }
        expectError(.stateMismatch) { try request.validateCallback(callback([("error", "access_denied")])) }
    }

    @Test func stateIsCheckedBeforeIssuer() throws {
        let request = try request(issParameter: true)
        expectError(.stateMismatch) {
            try request.validateCallback(callback([("code", "c"), ("state", "forged"), ("iss", "https://evil.example")]))
        }
    }

    @Test func differentIssIsIssuerMismatch() throws {
        let request = try request()
        expectError(.issuerMismatch) {
            try request.validateCallback(callback([("code", "c"), ("state", request.state), ("iss", "https://evil.example")]))
        }
        expectError(.issuerMismatch) {
            try request.validateCallback(callback([("code", "c"), ("state", request.state), ("iss", "https://idp.example/")]))
        }
    }

    /// An `iss` canonically equivalent to the issuer (the Kelvin sign for `K`) is another issuer.
    @Test func unicodeEquivalentIssIsIssuerMismatch() throws {
        let request = try request(issuer: "https://idp.example/Kelvin")
        let error = expectError(.issuerMismatch) {
            try request.validateCallback(
                callback([("code", "c"), ("state", request.state), ("iss", "https://idp.example/\u{212A}elvin")]))
        }
        #expect(error?.message == "callback comes from issuer https://idp.example/\u{212A}elvin, expected https://idp.example/Kelvin")
        #expect(throws: Never.self) {
            try request.validateCallback(callback([("code", "c"), ("state", request.state), ("iss", "https://idp.example/Kelvin")]))
        }
    }

    @Test func issIsCheckedBeforeError() throws {
        let request = try request()
        expectError(.issuerMismatch) {
            try request.validateCallback(callback([("error", "access_denied"), ("state", request.state), ("iss", "https://evil.example")]))
        }
    }

    @Test func missingIssWhenPromisedIsIssuerMismatch() throws {
        let request = try request(issParameter: true)
        #expect(request.requiresIssuerParameter)
        expectError(.issuerMismatch) { try request.validateCallback(callback([("code", "c"), ("state", request.state)])) }
    }

    /// Without a configured issuer there is nothing to compare `iss` with; it is not used.
    @Test func issWithoutConfiguredIssuerIsIgnored() throws {
        let request = try request(issuer: nil)
        let grant = try request.validateCallback(callback([("code", "c"), ("state", request.state), ("iss", "https://idp.example")]))
        #expect(grant.issuer == nil)
        _ = try request.validateCallback(callback([("code", "c"), ("state", request.state)]))
    }

    @Test func equalIssPasses() throws {
        let request = try request(issParameter: true)
        let grant = try request.validateCallback(callback([("code", "c"), ("state", request.state), ("iss", "https://idp.example")]))
        #expect(grant.code == "c")
    }

    @Test func errorResponseIsOAuthError() throws {
        let request = try request()
        let error = expectError(.oauthError) {
            try request.validateCallback(
                callback([
                    ("error", "access_denied"), ("error_description", "The user said no + more"),
                    ("error_uri", "https://idp.example/e"), ("state", request.state),
                ]))
        }
        #expect(error?.oauth?.error == "access_denied")
        #expect(error?.oauth?.errorDescription == "The user said no + more")
        #expect(error?.oauth?.errorURI == "https://idp.example/e")
    }

    @Test func noCodeIsInvalidResponse() throws {
        let request = try request()
        expectError(.invalidResponse) { try request.validateCallback(callback([("state", request.state)])) }
        expectError(.invalidResponse) { try request.validateCallback(callback([("state", request.state), ("code", "")])) }
    }

    @Test func duplicateParametersAreInvalidResponse() throws {
        let request = try request()
        expectError(.invalidResponse) {
            try request.validateCallback(callback([("code", "a"), ("state", request.state), ("code", "b")]))
        }
        expectError(.invalidResponse) {
            try request.validateCallback(callback([("code", "a"), ("state", request.state), ("state", request.state)]))
        }
    }

    @Test func malformedQueryIsInvalidResponse() throws {
        let request = try request()
        expectError(.invalidResponse) { try request.validateCallback(url(Self.redirect + "?code=%C3&state=" + request.state)) }
    }

    @Test func matchesState() throws {
        let request = try request()
        #expect(request.matchesState(request.state))
        #expect(!request.matchesState(request.state + "x"))
        #expect(!request.matchesState(""))
    }

    // MARK: AuthorizationGrant

    @Test func grantCodableRoundTripUsesSnakeCase() throws {
        let grant = AuthorizationGrant(
            code: "CODE-123", codeVerifier: fixedVerifier, redirectURI: url(Self.redirect), clientID: "app",
            nonce: "N", issuer: "https://idp.example", requestedScopes: ["openid", "email"], maxAge: 60)
        let data = try JSONEncoder().encode(grant)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys) == ["code", "code_verifier", "redirect_uri", "client_id", "nonce", "issuer", "requested_scopes", "max_age"])
        #expect(object["code_verifier"] as? String == fixedVerifier)
        #expect(object["redirect_uri"] as? String == Self.redirect)
        #expect(try JSONDecoder().decode(AuthorizationGrant.self, from: data) == grant)
    }

    @Test func grantDescriptionHidesSecrets() {
        let grant = AuthorizationGrant(
            code: "CODE-SECRET-123", codeVerifier: fixedVerifier, redirectURI: url(Self.redirect),
            clientID: "app", nonce: "NONCE-SECRET-456")
        for text in [grant.description, "\(grant)"] {
            #expect(!text.contains("CODE-SECRET-123"))
            #expect(!text.contains(fixedVerifier))
            #expect(!text.contains("NONCE-SECRET-456"))
            #expect(text.contains("app"))
        }
    }
}
