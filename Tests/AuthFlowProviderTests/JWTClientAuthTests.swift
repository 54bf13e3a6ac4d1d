#if EmbeddedProvider  // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import Foundation
import Testing

/// `private_key_jwt` and `client_secret_jwt` (RFC 7523 §2.2, OIDC Core §9):
/// the engine's assertions accepted at every endpoint that authenticates a
/// client, and each rule of the provider's check shown with a bad assertion.
@Suite("JWT client authentication")
struct JWTClientAuthTests {
    static let keys: [ClientAssertionKey] = [
        try! ClientAssertionKey.generate(algorithm: "RS256", keyID: "rs"),
        try! ClientAssertionKey.generate(algorithm: "PS256", keyID: "ps"),
        try! ClientAssertionKey.generate(algorithm: "ES256", keyID: "es"),
        try! ClientAssertionKey.generate(algorithm: "EdDSA", keyID: "ed"),
    ]
    static var esKey: ClientAssertionKey { keys[2] }
    static let hmacSecret = "a-long-enough-hmac-secret-for-hs256-0123456789"
    static let redirect = "http://127.0.0.1/callback"

    static func jwks(_ keys: [ClientAssertionKey]) -> JSONMemberValue {
        .object(["keys": .array(keys.map { .object($0.publicJWK) })])
    }

    static func with<T>(_ body: (EmbeddedProvider) async throws -> T) async throws -> T {
        var configuration = Fixture.configuration()
        let grants = Set(GrantType.all)
        for key in keys {
            configuration.clients.append(ProviderClient(id: "pkjwt-\(key.algorithm)", authentication: .privateKeyJWT, redirectURIs: [redirect],
                                                        grantTypes: grants, jwks: jwks([key])))
        }
        configuration.clients.append(ProviderClient(id: "csjwt", secret: hmacSecret, authentication: .clientSecretJWT,
                                                    redirectURIs: [redirect], grantTypes: grants))
        return try await Fixture.with(configuration, body)
    }

    @Test("each key type signs in with the code flow, refreshes, starts device authorization and revokes",
          arguments: [0, 1, 2, 3])
    func privateKeyJWTEverywhere(index: Int) async throws {
        let key = Self.keys[index]
        try await Self.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "pkjwt-\(key.algorithm)",
                                               authentication: .privateKeyJWT(key: key))
            let credentials = try await client.exchange(authorize(client, redirect: Self.redirect).1)
            let refreshed = try await client.refresh(credentials)
            _ = try await client.startDeviceAuthorization(scopes: ["openid"])
            try await client.revokeAll(refreshed)
            #expect(try await Wire(provider: provider).introspect(refreshed.accessToken)["active"] == .bool(false))
        }
    }

    @Test("client_secret_jwt and an issuer audience are accepted")
    func clientSecretJWTAndIssuerAudience() async throws {
        try await Self.with { provider in
            let hmac = try await OAuthClient(issuer: provider.issuer, clientID: "csjwt",
                                             authentication: .clientSecretJWT(secret: Self.hmacSecret, audience: .issuer))
            let credentials = try await hmac.exchange(authorize(hmac, redirect: Self.redirect).1)
            try await hmac.revokeAll(credentials)
            let keyed = try await OAuthClient(issuer: provider.issuer, clientID: "pkjwt-ES256",
                                              authentication: .privateKeyJWT(key: Self.esKey, audience: .issuer))
            _ = try await keyed.exchange(authorize(keyed, redirect: Self.redirect).1)
        }
    }

    // MARK: - the provider's rules, one bad assertion each

    /// Claims of a good assertion for `client`; tests change one thing.
    static func claims(_ provider: EmbeddedProvider, client: String = "pkjwt-ES256") -> [String: JSONMemberValue] {
        let now = Date().timeIntervalSince1970.rounded(.down)
        return ["iss": .string(client), "sub": .string(client), "aud": .string(provider.issuer.absoluteString + "/token"),
                "jti": .string(UUID().uuidString), "iat": .number(now), "exp": .number(now + 60)]
    }

    /// Posts a client_credentials grant with `assertion`; returns status and error description.
    static func post(_ provider: EmbeddedProvider, assertion: String, extra: [(String, String)] = [],
                     type: String = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") async throws -> (Int, String?, String?) {
        let response = try await Wire(provider: provider).post("/token", [("grant_type", "client_credentials"),
                                                                           ("client_assertion_type", type), ("client_assertion", assertion)] + extra)
        let json = Wire.json(response)
        return (response.status, json["error"]?.stringValue, json["error_description"]?.stringValue)
    }

    static func sign(_ claims: [String: JSONMemberValue], header: [String: JSONMemberValue] = [:],
                     with signer: ClientAssertion.Signer = .key(esKey)) throws -> String {
        try ClientAssertion.compact(header: header, claims: claims, signer: signer)
    }

    @Test("a good hand-made assertion is accepted once; its replay is refused")
    func replay() async throws {
        try await Self.with { provider in
            let assertion = try Self.sign(Self.claims(provider))
            let first = try await Self.post(provider, assertion: assertion)
            #expect(first.0 == 200)
            let second = try await Self.post(provider, assertion: assertion)
            #expect(second.0 == 400 && second.1 == "invalid_client")
            #expect(second.2 == "the client assertion was already used (jti replay)")
        }
    }

    @Test("each claim rule refuses its bad assertion with invalid_client and says why",
          arguments: [
            ("iss", "the client assertion's iss and sub must both be the client id"),
            ("aud", "the client assertion's aud names neither this issuer nor this endpoint"),
            ("expired", "the client assertion has expired"),
            ("long", "the client assertion is valid for too long (exp more than 3600 s ahead)"),
            ("noexp", "the client assertion has no exp"),
            ("nojti", "the client assertion has no jti"),
            ("future", "the client assertion was issued in the future (iat)"),
            ("nbf", "the client assertion is not valid yet (nbf)"),
          ])
    func claimRules(rule: String, message: String) async throws {
        try await Self.with { provider in
            var claims = Self.claims(provider)
            let now = Date().timeIntervalSince1970.rounded(.down)
            switch rule {
            case "iss": claims["iss"] = .string("pkjwt-RS256")
            case "aud": claims["aud"] = .string("https://elsewhere.example.com/token")
            case "expired": claims["exp"] = .number(now - 120)
            case "long": claims["exp"] = .number(now + 7200)
            case "noexp": claims["exp"] = nil
            case "nojti": claims["jti"] = nil
            case "future": claims["iat"] = .number(now + 120)
            default: claims["nbf"] = .number(now + 120)
            }
            let (status, error, description) = try await Self.post(provider, assertion: try Self.sign(claims))
            #expect(status == 400)
            #expect(error == "invalid_client")
            #expect(description == message)
        }
    }

    @Test("an aud array naming the issuer is accepted")
    func audienceArray() async throws {
        try await Self.with { provider in
            var claims = Self.claims(provider)
            claims["aud"] = .array([.string("https://other.example.com"), .string(provider.issuer.absoluteString)])
            let (status, _, _) = try await Self.post(provider, assertion: try Self.sign(claims))
            #expect(status == 200)
        }
    }

    @Test("signature rules: another key, an unknown kid, alg none, HS256 for a private_key_jwt client, a wrong HMAC secret")
    func signatureRules() async throws {
        try await Self.with { provider in
            let impostor = try ClientAssertionKey.generate(algorithm: "ES256", keyID: "es")
            var result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider), with: .key(impostor)))
            #expect(result.1 == "invalid_client" && result.2 == "the client assertion's signature is invalid")

            let stranger = try ClientAssertionKey.generate(algorithm: "ES256", keyID: "unknown")
            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider), with: .key(stranger)))
            #expect(result.1 == "invalid_client" && result.2 == "no registered key of the client fits the assertion")

            let good = try Self.sign(Self.claims(provider)).split(separator: ".")
            let noneHeader = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
            result = try await Self.post(provider, assertion: "\(noneHeader).\(good[1]).")
            #expect(result.1 == "invalid_client" && result.2 == "the assertion's algorithm none is not accepted for private_key_jwt")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider), with: .secret(Self.hmacSecret)))
            #expect(result.1 == "invalid_client" && result.2 == "the assertion's algorithm HS256 is not accepted for private_key_jwt")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider, client: "csjwt"), with: .secret("wrong-secret")))
            #expect(result.1 == "invalid_client" && result.2 == "the client assertion's signature is invalid")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider, client: "csjwt"), with: .key(Self.esKey)))
            #expect(result.1 == "invalid_client" && result.2 == "the assertion's algorithm ES256 is not accepted for client_secret_jwt")
        }
    }

    @Test("method rules: wrong assertion type, mixed methods, a secret client using a JWT, a JWT client sending none")
    func methodRules() async throws {
        try await Self.with { provider in
            let assertion = try Self.sign(Self.claims(provider))
            var result = try await Self.post(provider, assertion: assertion, type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
            #expect(result.1 == "invalid_client"
                && result.2 == "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider)), extra: [("client_secret", "x")])
            #expect(result.1 == "invalid_request" && result.2 == "the client used more than one authentication method")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider)), extra: [("client_id", "pkjwt-RS256")])
            #expect(result.1 == "invalid_client" && result.2 == "client_id differs from the assertion's sub")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider, client: "post-client")))
            #expect(result.1 == "invalid_client" && result.2 == "the client is not registered for private_key_jwt or client_secret_jwt")

            result = try await Self.post(provider, assertion: "not.a.jws")
            #expect(result.1 == "invalid_client" && result.2 == "the client assertion is not a JWS")

            let bare = try await Wire(provider: provider).post("/token", [("grant_type", "client_credentials"), ("client_id", "pkjwt-ES256")])
            #expect(Wire.json(bare)["error_description"] == .string("the client is registered for private_key_jwt and sent no client_assertion"))
        }
    }

    @Test("discovery lists the JWT methods and their algorithms; a private_key_jwt client needs registered keys")
    func discoveryAndConfiguration() async throws {
        try await Self.with { provider in
            let metadata = try await ProviderMetadata.discover(issuer: provider.issuer)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("private_key_jwt") == true)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("client_secret_jwt") == true)
        }
        var configuration = Fixture.configuration()
        configuration.clients.append(ProviderClient(id: "keyless", authentication: .privateKeyJWT))
        await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(configuration) }
    }
}
#endif
