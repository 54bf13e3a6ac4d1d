#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Crypto
import _CryptoExtras
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
            configuration.clients.append(
                ProviderClient(
                    id: "pkjwt-\(key.algorithm)", authentication: .privateKeyJWT, redirectURIs: [redirect],
                    grantTypes: grants, jwks: jwks([key])))
        }
        configuration.clients.append(
            ProviderClient(
                id: "csjwt", secret: hmacSecret, authentication: .clientSecretJWT,
                redirectURIs: [redirect], grantTypes: grants))
        return try await Fixture.with(configuration, body)
    }

    @Test(
        "each key type signs in with the code flow, refreshes, starts device authorization and revokes",
        arguments: [0, 1, 2, 3])
    func privateKeyJWTEverywhere(index: Int) async throws {
        let key = Self.keys[index]
        try await Self.with { provider in
            let client = try await OAuthClient(
                issuer: provider.issuer, clientID: "pkjwt-\(key.algorithm)",
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
            let hmac = try await OAuthClient(
                issuer: provider.issuer, clientID: "csjwt",
                authentication: .clientSecretJWT(secret: Self.hmacSecret, audience: .issuer))
            let credentials = try await hmac.exchange(authorize(hmac, redirect: Self.redirect).1)
            try await hmac.revokeAll(credentials)
            let keyed = try await OAuthClient(
                issuer: provider.issuer, clientID: "pkjwt-ES256",
                authentication: .privateKeyJWT(key: Self.esKey, audience: .issuer))
            _ = try await keyed.exchange(authorize(keyed, redirect: Self.redirect).1)
        }
    }

    // MARK: - the provider's rules, one bad assertion each

    /// Claims of a good assertion for `client`; tests change one thing.
    static func claims(_ provider: EmbeddedProvider, client: String = "pkjwt-ES256") -> [String: JSONMemberValue] {
        let now = Date().timeIntervalSince1970.rounded(.down)
        return [
            "iss": .string(client), "sub": .string(client), "aud": .string(provider.issuer.identifier),
            "jti": .string(UUID().uuidString), "iat": .number(now), "exp": .number(now + 60),
        ]
    }

    /// Posts a client_credentials grant with `assertion`; returns status and error description.
    static func post(
        _ provider: EmbeddedProvider, assertion: String, extra: [(String, String)] = [],
        type: String = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    ) async throws -> (Int, String?, String?) {
        let response = try await Wire(provider: provider).post(
            "/token",
            [
                ("grant_type", "client_credentials"),
                ("client_assertion_type", type), ("client_assertion", assertion),
            ] + extra)
        let json = Wire.json(response)
        return (response.status, json["error"]?.stringValue, json["error_description"]?.stringValue)
    }

    static func sign(
        _ claims: [String: JSONMemberValue], header: [String: JSONMemberValue] = [:],
        with signer: ClientAssertion.Signer = .key(esKey)
    ) throws -> String {
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

    @Test(
        "each claim rule refuses its bad assertion with invalid_client and says why",
        arguments: [
            ("iss", "the client assertion's iss and sub must both be the client id"),
            ("aud", "the client assertion's aud is not this issuer"),
            ("token", "the client assertion's aud is not this issuer"),
            ("par", "the client assertion's aud is not this issuer"),
            ("array", "the client assertion's aud must be a single string, this issuer"),
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
            case "token": claims["aud"] = .string(provider.issuer.identifier + "/token")
            case "par": claims["aud"] = .string(provider.issuer.identifier + "/par")
            case "array": claims["aud"] = .array([.string(provider.issuer.identifier)])
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

    @Test("the token endpoint as aud only behind the compatibility setting; other endpoints and arrays never")
    func tokenEndpointAudienceIsACompatibilitySetting() async throws {
        var configuration = Fixture.configuration()
        configuration.acceptsTokenEndpointAssertionAudience = true
        configuration.clients.append(
            ProviderClient(
                id: "pkjwt-ES256", authentication: .privateKeyJWT, grantTypes: [GrantType.clientCredentials],
                jwks: Self.jwks([Self.esKey])))
        try await Fixture.with(configuration) { provider in
            var claims = Self.claims(provider)
            claims["aud"] = .string(provider.issuer.identifier + "/token")
            #expect(try await Self.post(provider, assertion: try Self.sign(claims)).0 == 200)
            claims = Self.claims(provider)
            #expect(try await Self.post(provider, assertion: try Self.sign(claims)).0 == 200)
            for bad: JSONMemberValue in [
                .string(provider.issuer.identifier + "/par"),
                .array([.string(provider.issuer.identifier + "/token")]),
            ] {
                claims = Self.claims(provider)
                claims["aud"] = bad
                let (status, error, _) = try await Self.post(provider, assertion: try Self.sign(claims))
                #expect(status == 400 && error == "invalid_client")
            }
        }
    }

    @Test("a client_secret_jwt secret shorter than the hash is refused: at start (HS256) and per algorithm (HS512)")
    func shortHMACSecrets() async throws {
        var configuration = Fixture.configuration()
        configuration.clients.append(
            ProviderClient(
                id: "short", secret: String(repeating: "s", count: 31), authentication: .clientSecretJWT,
                grantTypes: [GrantType.clientCredentials]))
        let refused = await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(configuration) }
        #expect(refused?.description == "client short: a client_secret_jwt secret needs at least 32 bytes (RFC 7518 §3.2)")
        try await Self.with { provider in
            // hmacSecret has 46 bytes: enough for HS256 and HS384, not for HS512.
            let claims = Self.claims(provider, client: "csjwt")
            let hs512 = try Self.sign(claims, header: ["alg": .string("HS512")], with: .secret(Self.hmacSecret))
            let (status, error, description) = try await Self.post(provider, assertion: hs512)
            #expect(status == 400 && error == "invalid_client")
            #expect(description == "the client's secret is shorter than HS512 needs (64 bytes, RFC 7518 §3.2)")
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

            result = try await Self.post(
                provider, assertion: try Self.sign(Self.claims(provider, client: "csjwt"), with: .secret("wrong-secret")))
            #expect(result.1 == "invalid_client" && result.2 == "the client assertion's signature is invalid")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider, client: "csjwt"), with: .key(Self.esKey)))
            #expect(result.1 == "invalid_client" && result.2 == "the assertion's algorithm ES256 is not accepted for client_secret_jwt")
        }
    }

    @Test("method rules: wrong assertion type, mixed methods, a secret client using a JWT, a JWT client sending none")
    func methodRules() async throws {
        try await Self.with { provider in
            let assertion = try Self.sign(Self.claims(provider))
            var result = try await Self.post(
                provider, assertion: assertion, type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
            #expect(
                result.1 == "invalid_client"
                    && result.2 == "client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider)), extra: [("client_secret", "x")])
            #expect(result.1 == "invalid_request" && result.2 == "the client used more than one authentication method")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider)), extra: [("client_id", "pkjwt-RS256")])
            #expect(result.1 == "invalid_client" && result.2 == "client_id differs from the assertion's sub")

            result = try await Self.post(provider, assertion: try Self.sign(Self.claims(provider, client: "post-client")))
            #expect(result.1 == "invalid_client" && result.2 == "the client is not registered for private_key_jwt or client_secret_jwt")

            result = try await Self.post(provider, assertion: "not.a.jws")
            #expect(result.1 == "invalid_client" && result.2 == "the client assertion is not a JWS")

            let bare = try await Wire(provider: provider).post(
                "/token", [("grant_type", "client_credentials"), ("client_id", "pkjwt-ES256")])
            #expect(
                Wire.json(bare)["error_description"] == .string("the client is registered for private_key_jwt and sent no client_assertion")
            )
        }
    }

    @Test("every advertised assertion algorithm is accepted", arguments: ["RS384", "RS512", "PS384", "PS512", "ES384", "HS384", "HS512"])
    func advertisedAlgorithmsAreAccepted(algorithm: String) async throws {
        let secret = String(repeating: "k", count: 64)
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let p384 = P384.Signing.PrivateKey()
        let primitives = try rsa.publicKey.getKeyPrimitives()
        let point = Array(p384.publicKey.x963Representation)
        let jwks: [JSONMemberValue] = [
            .object([
                "kty": .string("RSA"), "n": .string(Base64URL.encode(Array(primitives.modulus))),
                "e": .string(Base64URL.encode(Array(primitives.publicExponent))),
            ]),
            .object([
                "kty": .string("EC"), "crv": .string("P-384"), "x": .string(Base64URL.encode(point[1...48])),
                "y": .string(Base64URL.encode(point[49...96])),
            ]),
        ]
        var configuration = Fixture.configuration()
        configuration.clients += [
            ProviderClient(id: "hmac64", secret: secret, authentication: .clientSecretJWT, grantTypes: [GrantType.clientCredentials]),
            ProviderClient(
                id: "keys", authentication: .privateKeyJWT, grantTypes: [GrantType.clientCredentials],
                jwks: .object(["keys": .array(jwks)])),
        ]
        try await Fixture.with(configuration) { provider in
            let claims = Self.claims(provider, client: algorithm.hasPrefix("HS") ? "hmac64" : "keys")
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let input =
                Base64URL.encode(Array(try encoder.encode(JSONMemberValue.object(["alg": .string(algorithm), "typ": .string("JWT")]))))
                + "." + Base64URL.encode(Array(try encoder.encode(JSONMemberValue.object(claims))))
            let bytes = Array(input.utf8)
            let hmacKey = SymmetricKey(data: Array(secret.utf8))
            let signature: [UInt8] =
                switch algorithm {
                case "HS384": Array(HMAC<SHA384>.authenticationCode(for: bytes, using: hmacKey))
                case "HS512": Array(HMAC<SHA512>.authenticationCode(for: bytes, using: hmacKey))
                case "ES384": Array(try p384.signature(for: bytes).rawRepresentation)
                case "RS384": Array(try rsa.signature(for: SHA384.hash(data: bytes), padding: .insecurePKCS1v1_5).rawRepresentation)
                case "RS512": Array(try rsa.signature(for: SHA512.hash(data: bytes), padding: .insecurePKCS1v1_5).rawRepresentation)
                case "PS384": Array(try rsa.signature(for: SHA384.hash(data: bytes), padding: .PSS).rawRepresentation)
                default: Array(try rsa.signature(for: SHA512.hash(data: bytes), padding: .PSS).rawRepresentation)
                }
            let (status, error, description) = try await Self.post(provider, assertion: input + "." + Base64URL.encode(signature))
            #expect(status == 200, "\(algorithm): \(error ?? "") \(description ?? "")")
        }
    }

    @Test("provider serve lists each client by its authentication")
    func listing() throws {
        let key = try ClientAssertionKey.generate(algorithm: "ES256")
        let pkjwt = ProviderClient(
            id: "jwt", authentication: .privateKeyJWT, redirectURIs: ["http://127.0.0.1/cb"],
            jwks: .object(["keys": .array([.object(key.publicJWK)])]))
        #expect(pkjwt.listing == "client: jwt (private_key_jwt, 1 registered key(s)) redirect_uris=http://127.0.0.1/cb")
        #expect(
            ProviderClient(id: "pub", redirectURIs: ["http://127.0.0.1/cb"]).listing
                == "client: pub (public) redirect_uris=http://127.0.0.1/cb")
        #expect(
            ProviderClient(id: "c", secret: "s", authentication: .clientSecretPost).listing
                == "client: c secret=s (client_secret_post) redirect_uris=")
    }

    @Test("discovery lists the JWT methods and their algorithms; a private_key_jwt client needs registered keys")
    func discoveryAndConfiguration() async throws {
        try await Self.with { provider in
            let metadata = try await ProviderMetadata.discover(issuer: provider.issuer)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("private_key_jwt") == true)
            #expect(metadata.tokenEndpointAuthMethodsSupported?.contains("client_secret_jwt") == true)
            // Exactly the algorithms the checks accept, each of which is shown accepted below.
            let raw = Wire.json(try await Wire(provider: provider).get("/.well-known/openid-configuration"))
            let assertion = ["ES256", "ES384", "EdDSA", "HS256", "HS384", "HS512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"]
            for member in [
                "token_endpoint_auth_signing_alg_values_supported", "revocation_endpoint_auth_signing_alg_values_supported",
                "introspection_endpoint_auth_signing_alg_values_supported",
            ] {
                #expect(raw[member] == .array(assertion.map(JSONMemberValue.string)), "\(member)")
            }
            #expect(
                raw["dpop_signing_alg_values_supported"] == .array(assertion.filter { !$0.hasPrefix("HS") }.map(JSONMemberValue.string)))
        }
        var configuration = Fixture.configuration()
        configuration.clients.append(ProviderClient(id: "keyless", authentication: .privateKeyJWT))
        await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(configuration) }
    }
}
#endif
