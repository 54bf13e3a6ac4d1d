#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// The demo protected resource, RFC 8707 resource indicators and RFC 9068
/// JWT access tokens, driven by the engine's own discovery and registration.
@Suite("Protected resource, resource indicators, JWT access tokens")
struct ProtectedResourceTests {
    static let api = ProviderProtectedResource(path: "/api")

    static func configuration() -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.protectedResources = [api]
        return configuration
    }

    /// GET of the resource over a raw socket (URLSession on Linux may hold a 401 waiting for credentials).
    static func call(_ provider: EmbeddedProvider, _ token: String? = nil, path: String = "/api") async throws -> HTTPTransportResponse {
        try await RawHTTP.send(
            port: provider.port, method: "GET", target: path, headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [], body: "")
    }

    /// The JOSE header and claims of a JWT, unverified.
    static func parts(_ jwt: String) throws -> (header: [String: JSONMemberValue], claims: [String: JSONMemberValue]) {
        let segments = jwt.split(separator: ".").map(String.init)
        try #require(segments.count == 3)
        func object(_ text: String) throws -> [String: JSONMemberValue] {
            let bytes = try #require(Base64URL.decode(text))
            return try #require(try JSONDecoder().decode(JSONMemberValue.self, from: Data(bytes)).objectValue)
        }
        return (try object(segments[0]), try object(segments[1]))
    }

    static func registered() -> ClientIdentity {
        ClientIdentity(registration: ClientRegistrationRequest(redirectURIs: [URL(string: "http://127.0.0.1/callback")!]))
    }

    @Test("401 names the metadata; the engine finds the provider, registers, signs in; the at+jwt's aud is the resource; 200")
    func wholeChain() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let resource = provider.identifier(of: Self.api)
            let bare = try await Self.call(provider)
            #expect(bare.status == 401)
            let challenge = try #require(ResourceChallenge(bare))
            #expect(challenge.scheme.lowercased() == "bearer" && challenge.error == nil && challenge.scopes == nil)
            #expect(
                challenge.resourceMetadataURL?.absoluteString == provider.issuer.identifier
                    + "/.well-known/oauth-protected-resource/api")

            let access = try await OAuthClient.forResource(resource, challenge: challenge, identity: Self.registered())
            #expect(access.registeredNow && access.registration?.clientSecret == nil)
            #expect(access.resourceMetadata.authorizationServers == [provider.issuer])
            #expect(access.resourceMetadata.scopesSupported == ["api.read"] && access.resourceMetadata.bearerMethodsSupported == ["header"])
            #expect(access.client.resource?.url == resource)

            let (_, grant) = try await authorize(access.client, scopes: ["openid", "api.read", "offline_access"])
            let credentials = try await access.client.exchange(grant)
            let (header, claims) = try Self.parts(credentials.accessToken)
            #expect(header["typ"] == .string("at+jwt") && header["alg"] == .string("ES256") && header["kid"] != nil)
            #expect(claims["aud"] == .string(resource.absoluteString) && claims["iss"] == .string(provider.issuer.identifier))
            #expect(claims["sub"] == .string("demo") && claims["client_id"] == .string(access.registration?.clientID ?? "-"))
            #expect(claims["scope"] == .string("openid api.read offline_access") && claims["cnf"] == nil)
            let iat = try #require(claims["iat"]?.numberValue)
            #expect(claims["exp"]?.numberValue == iat + 3600 && claims["jti"]?.stringValue?.isEmpty == false)

            let ok = try await Self.call(provider, credentials.accessToken)
            #expect(ok.status == 200)
            #expect(Wire.json(ok)["sub"] == .string("demo") && Wire.json(ok)["resource"] == .string(resource.absoluteString))
            #expect(try await Self.call(provider, credentials.accessToken, path: "/api/items").status == 200)
            // Userinfo and introspection still find the token.
            let info = try await access.client.userInfo(accessToken: credentials.accessToken, expectedSubject: "demo")
            #expect(info.subject == "demo")
            #expect(try await Wire(provider: provider).introspect(credentials.accessToken)["aud"] == .string(resource.absoluteString))
            // The refresh names the resource again (the engine sends it); the new token is for it too.
            let refreshed = try await access.client.refresh(credentials)
            #expect(try Self.parts(refreshed.accessToken).claims["aud"] == .string(resource.absoluteString))
            // Revoked: the provider's introspection says so (the API, behind the middleware, verifies the JWT by its signature).
            try await access.client.revokeAll(refreshed)
            #expect(try await Wire(provider: provider).introspect(refreshed.accessToken)["active"] == .bool(false))
        }
    }

    @Test("a token without the required scope is 403 insufficient_scope with scope=; one for another audience is 401")
    func scopeAndAudience() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let resource = provider.identifier(of: Self.api)
            let access = try await OAuthClient.forResource(resource, identity: Self.registered())
            let (_, grant) = try await authorize(access.client, scopes: ["openid"])
            let narrow = try await access.client.exchange(grant)
            let forbidden = try await Self.call(provider, narrow.accessToken)
            #expect(forbidden.status == 403)
            let challenge = try #require(ResourceChallenge(forbidden))
            #expect(challenge.isInsufficientScope && challenge.scopes == ["api.read"] && challenge.resourceMetadataURL != nil)
            // No resource asked for: the token's aud is the provider's userinfo endpoint, not the API.
            let plain = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let (_, plainGrant) = try await authorize(plain, scopes: ["openid", "api.read"])
            let other = try await plain.exchange(plainGrant)
            #expect(try Self.parts(other.accessToken).claims["aud"] == .string(provider.issuer.identifier + "/userinfo"))
            let wrongAudience = try await Self.call(provider, other.accessToken)
            #expect(wrongAudience.status == 401 && ResourceChallenge(wrongAudience)?.errorDescription?.contains("not addressed to") == true)
            #expect(try await Self.call(provider, "not-a-token").status == 401)
        }
    }

    @Test("a DPoP-bound token carries cnf.jkt and is accepted at the resource with the DPoP scheme and a proof of its key")
    func dpopBound() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let resource = provider.identifier(of: Self.api)
            let binding = DPoPBinding()
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            client.dpop = binding
            client.resource = try ResourceIdentifier(resource)
            let credentials = try await client.exchange(authorize(client, scopes: ["openid", "api.read"]).1)
            #expect(try Self.parts(credentials.accessToken).claims["cnf"] == .object(["jkt": .string(binding.key.thumbprint)]))
            func call(_ scheme: String, _ proof: String?) async throws -> HTTPTransportResponse {
                var headers = [("Authorization", "\(scheme) \(credentials.accessToken)")]
                if let proof { headers.append(("DPoP", proof)) }
                return try await RawHTTP.send(port: provider.port, method: "GET", target: "/api", headers: headers, body: "")
            }
            #expect(try await call("DPoP", binding.proof(method: "GET", url: resource, accessToken: credentials.accessToken)).status == 200)
            let asBearer = try await call("Bearer", nil)
            #expect(asBearer.status == 401 && ResourceChallenge(asBearer)?.errorDescription?.contains("DPoP-bound") == true)
            let thief = try DPoPKey().proof(method: "GET", url: resource, accessToken: credentials.accessToken)
            let stolen = try await call("DPoP", thief)
            let dpopChallenge = stolen.headers.first { $0.name.lowercased() == "www-authenticate" && $0.value.hasPrefix("DPoP ") }?.value
            #expect(
                stolen.status == 401
                    && dpopChallenge?.contains(#"error_description="the DPoP proof's key is not the token's (cnf.jkt)""#) == true)
        }
    }

    @Test(
        "a resource path must look like /api and not take an endpoint's place",
        arguments: ["/token", "/.well-known/x", "api", "/", "/a/", "/a?b"])
    func badPaths(path: String) async throws {
        var configuration = Self.configuration()
        configuration.protectedResources = [ProviderProtectedResource(path: path)]
        await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(configuration) }
    }

    @Test("RFC 9728 metadata at the inserted well-known path")
    func metadataDocument() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let metadata = try await ProtectedResourceMetadata.discover(resource: provider.identifier(of: Self.api))
            #expect(metadata.resource.url == provider.identifier(of: Self.api))
            #expect(metadata.authorizationServers == [provider.issuer] && metadata.resourceName == "AuthFlow demo API")
            let discovery = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo").metadata
            #expect(discovery.scopesSupported?.contains("api.read") == true)
        }
    }

    @Test("resource must be an absolute URI without a fragment; a token request may not switch to another resource")
    func invalidTarget() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let wire = Wire(provider: provider)
            let base: [(String, String)] = [
                ("response_type", "code"), ("client_id", "authflow-demo"), ("redirect_uri", "http://127.0.0.1:9/callback"),
                ("code_challenge", someChallenge), ("code_challenge_method", "S256"), ("state", "s"),
            ]
            for (value, words) in [("api", "absolute URI"), ("https://api.example.com/#x", "fragment")] {
                let response = try await wire.get("/authorize", base + [("resource", value)])
                let location = try #require(response.header("Location").flatMap(URL.init(string:)))
                let parameters = Wire.parameters(of: location)
                #expect(parameters["error"] == "invalid_target" && parameters["error_description"]?.contains(words) == true)
            }
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            client.resource = try ResourceIdentifier(provider.identifier(of: Self.api))
            let (request, grant) = try await authorize(client, scopes: ["openid", "offline_access"])
            let credentials = try await client.exchange(grant)
            _ = request
            let refreshToken = try #require(credentials.token.refreshToken)
            let switched = try await wire.post(
                "/token",
                [
                    ("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", "authflow-demo"),
                    ("resource", "https://other.example.com/api"),
                ])
            #expect(switched.status == 400 && Wire.json(switched)["error"] == .string("invalid_target"))
        }
    }

    @Test("the login page posts resource back: the code is bound to it, with or without resource at the token endpoint")
    func loginPageKeepsTheResource() async throws {
        var configuration = Self.configuration()
        configuration.signIn = .loginPage
        try await Fixture.with(configuration) { provider in
            let wire = Wire(provider: provider)
            let resource = provider.identifier(of: Self.api).absoluteString
            let redirect = "http://127.0.0.1:9/callback"
            /// Signs in as a browser does: the page's hidden fields, the user's name, password and decision.
            func code(_ pkce: AuthorizationRequest.PKCE) async throws -> String {
                let page = try await wire.get(
                    "/authorize",
                    [
                        ("response_type", "code"), ("client_id", "authflow-demo"), ("redirect_uri", redirect), ("scope", "openid api.read"),
                        ("state", "s"), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256"), ("resource", resource),
                    ])
                let hidden = PARTests.hiddenFields(page)
                #expect(hidden.contains { $0 == ("resource", resource) })
                let answer = try await wire.post(
                    "/authorize", hidden + [("username", "demo"), ("password", "demo"), ("decision", "allow")])
                let location = try #require(answer.header("Location").flatMap(URL.init(string:)))
                return try #require(Wire.parameters(of: location)["code"])
            }
            func redeem(_ code: String, _ pkce: AuthorizationRequest.PKCE, _ extra: [(String, String)]) async throws
                -> HTTPTransportResponse
            {
                try await wire.post(
                    "/token",
                    [
                        ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("client_id", "authflow-demo"),
                        ("code_verifier", pkce.verifier),
                    ] + extra)
            }
            // No resource at the token endpoint: the token is for the resource of the authorization request.
            let first = AuthorizationRequest.PKCE()
            let token = Wire.json(try await redeem(try await code(first), first, []))
            let access = try #require(token["access_token"]?.stringValue)
            #expect(try Self.parts(access).claims["aud"] == .string(resource))
            #expect(try await Self.call(provider, access).status == 200)
            // Another resource at the token endpoint than the one authorized: invalid_target.
            let second = AuthorizationRequest.PKCE()
            let switched = try await redeem(try await code(second), second, [("resource", "https://other.example.com/api")])
            #expect(switched.status == 400 && Wire.json(switched)["error"] == .string("invalid_target"))
        }
    }
}
#endif
