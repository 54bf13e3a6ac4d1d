import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The returned `acr` is compared with what was asked when the request made it essential (the `claims`
/// parameter, OIDC Core §5.5.1.1) or the app asked for the check (`checksACRValues`).
extension IDTokenTests {
    @Test func acrMustBeOneOfTheRequiredValues() async throws {
        let idp = try provider()
        var rules = TestIDP.rules()
        rules.acrValues = ["urn:example:a3", "urn:example:a4"]
        let missing = await expectError(.idTokenInvalid, reason: .authenticationContextClass) {
            try await verify(try ecToken(), with: idp, rules: rules)
        }
        #expect(missing?.message == "an acr was required but the ID token has none")
        let weaker = await expectError(.idTokenInvalid, reason: .authenticationContextClass) {
            try await verify(try ecToken(["acr": .string("urn:example:a1")]), with: idp, rules: rules)
        }
        #expect(weaker?.message == "the ID token's acr urn:example:a1 is not one of those required (urn:example:a3 urn:example:a4)")
        await expectError(.idTokenInvalid, reason: .malformed) {
            try await verify(try ecToken(["acr": .array([.string("urn:example:a3")])]), with: idp, rules: rules)
        }
        let claims = try await verify(try ecToken(["acr": .string("urn:example:a4")]), with: idp, rules: rules)
        #expect(claims.authenticationContextClass == "urn:example:a4")
        // Not required: any acr, or none, is accepted.
        _ = try await verify(try ecToken(["acr": .string("urn:example:a1")]), with: idp)
        _ = try await verify(try ecToken(), with: idp)
    }
}

@Suite struct ACRRequirementTests {
    static let redirect = url("http://127.0.0.1:8765/callback")

    func request(_ options: AuthorizationOptions) throws -> AuthorizationRequest {
        let client = try OAuthClient(metadata: metadata(), clientID: "app")
        return try client.authorizationRequest(redirectURI: Self.redirect, scopes: ["openid"], options: options)
    }

    static func claims(_ acr: String) -> AuthorizationOptions.Parameter {
        AuthorizationOptions.Parameter("claims", #"{"id_token":{"acr":\#(acr)}}"#)
    }

    @Test(arguments: [
        (#"{"essential":true,"values":["urn:a3","urn:a4"]}"#, ["urn:a3", "urn:a4"]),
        (#"{"essential":true,"value":"urn:a3"}"#, ["urn:a3"]),
        (#"{"essential":false,"values":["urn:a3"]}"#, nil),
        (#"{"values":["urn:a3"]}"#, nil),
        (#"null"#, nil),
    ])
    func anEssentialAcrInTheClaimsParameterIsRequired(_ acr: String, _ required: [String]?) throws {
        let request = try request(AuthorizationOptions(acrValues: ["urn:a1"], additionalParameters: [Self.claims(acr)]))
        #expect(request.requiredACRValues == required)
        #expect(request.url.query?.contains("claims=") == true)
    }

    @Test func theAppCanAskForTheCheckOfItsAcrValues() throws {
        var options = AuthorizationOptions(acrValues: ["urn:a3"])
        #expect(try request(options).requiredACRValues == nil)
        options.checksACRValues = true
        #expect(try request(options).requiredACRValues == ["urn:a3"])
        // An essential acr in the claims parameter names the values the token must have.
        options.additionalParameters = [Self.claims(#"{"essential":true,"values":["urn:a4"]}"#)]
        #expect(try request(options).requiredACRValues == ["urn:a4"])
    }

    @Test func askingForTheCheckWithoutValuesIsAConfigurationError() {
        var options = AuthorizationOptions()
        options.checksACRValues = true
        let error = expectError(.configuration) { try request(options) }
        #expect(error?.message == "checksACRValues is set but acrValues is empty: give the acr values the ID token must name")
    }

    /// The grant a callback yields carries the requirement, also to a backend (Codable), and an older grant without it decodes.
    @Test func theGrantCarriesTheRequirement() throws {
        var options = AuthorizationOptions(acrValues: ["urn:a3"])
        options.checksACRValues = true
        let request = try request(options)
        var callback = URLComponents(url: Self.redirect, resolvingAgainstBaseURL: false)!
        callback.queryItems = [.init(name: "code", value: "C"), .init(name: "state", value: request.state)]
        let grant = try request.validateCallback(callback.url!)
        #expect(grant.requiredACRValues == ["urn:a3"])
        let decoded = try JSONDecoder().decode(AuthorizationGrant.self, from: JSONEncoder().encode(grant))
        #expect(decoded == grant)
        var older = try JSONSerialization.jsonObject(with: JSONEncoder().encode(grant)) as! [String: Any]
        #expect(older.removeValue(forKey: "required_acr_values") != nil)
        let fromOlder = try JSONDecoder().decode(AuthorizationGrant.self, from: JSONSerialization.data(withJSONObject: older))
        #expect(fromOlder.requiredACRValues == nil)
    }

    /// Through `OAuthClient.exchange` against a token endpoint and JWK Set on 127.0.0.1.
    @Test(arguments: [(String?.none, false), ("urn:a1", false), ("urn:a3", true)])
    func exchangeRefusesAnIDTokenWithoutTheRequiredAcr(_ acr: String?, _ accepted: Bool) async throws {
        let now = Date().timeIntervalSince1970
        var claims = TestIDP.claims(["exp": .number(now + 300), "iat": .number(now)])
        if let acr { claims["acr"] = .string(acr) }
        let idToken = try jws(claims, key: .ec256, alg: "ES256", kid: "ec1")
        let jwks = jwksJSON([SigningKey.ec256.jwk(kid: "ec1")])
        let server = try LocalHTTPServer { request in
            switch request.target {
            case "/jwks": .json(jwks)
            case "/token": .json(#"{"access_token":"AT","token_type":"Bearer","id_token":"\#(idToken)"}"#)
            default: .init(status: 404)
            }
        }
        defer { server.stop() }
        var provider = metadata(issuer: Issuer(stringLiteral: TestIDP.issuer), token: server.url("/token").absoluteString)
        provider.jwksURI = server.url("/jwks")
        let client = try OAuthClient(metadata: provider, clientID: TestIDP.clientID, timeout: 5)
        var grant = AuthorizationGrant(
            code: "c", codeVerifier: fixedVerifier, redirectURI: Self.redirect, clientID: TestIDP.clientID, nonce: "N-1",
            issuer: Issuer(stringLiteral: TestIDP.issuer), requestedScopes: ["openid"])
        grant.requiredACRValues = ["urn:a3"]
        if accepted {
            let credentials = try await client.exchange(grant)
            #expect(credentials.idToken?.authenticationContextClass == "urn:a3")
        } else {
            await expectError(.idTokenInvalid, reason: .authenticationContextClass) { try await client.exchange(grant) }
        }
    }
}
