#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

@Suite("Dynamic client registration (RFC 7591)")
struct RegistrationTests {
    /// POSTs `json` to the registration endpoint.
    static func register(_ provider: EmbeddedProvider, _ json: String, contentType: String = "application/json") async throws
        -> (status: Int, body: [String: JSONMemberValue])
    {
        let response = try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: provider.issuer.url.appendingPathComponent("register"), headers: [("Content-Type", contentType)],
                body: Data(json.utf8)))
        return (response.status, Wire.json(response))
    }

    @Test("the engine registers a native public client; it signs in at once, any loopback port; forgetting it gives invalid_client")
    func registerThroughTheEngine() async throws {
        try await Fixture.with { provider in
            let metadata = try await ProviderMetadata.discover(authorizationServer: provider.issuer)
            #expect(metadata.registrationEndpoint?.absoluteString == provider.issuer.identifier + "/register")
            #expect(metadata.clientIDMetadataDocumentSupported)
            let request = ClientRegistrationRequest(redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "Registered CLI")
            let registration = try await ClientRegistration.register(request, with: metadata)
            #expect(registration.clientSecret == nil && registration.tokenEndpointAuthMethod == "none")
            #expect(registration.issuedAt != nil && registration.issuer == provider.issuer)
            #expect(registration.redirectURIs == [URL(string: "http://127.0.0.1/callback")!])
            let client = try OAuthClient(metadata: metadata, clientID: registration.clientID)
            // Registered without a port: any port matches (RFC 8252 §7.3).
            let (_, grant) = try await authorize(client, redirect: "http://127.0.0.1:53123/callback")
            let credentials = try await client.exchange(grant)
            #expect(credentials.subject == "demo")
            #expect(await provider.forgetRegisteredClients() == 1)
            let error = await #expect(throws: AuthFlowError.self) { try await client.refresh(credentials) }
            #expect(error?.oauth?.error == "invalid_client")
        }
    }

    /// The fixture with a protected resource whose scope (`api.read`) registered clients may have.
    static func withResource() -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.protectedResources = [ProviderProtectedResource(path: "/api")]
        return configuration
    }

    @Test("the response echoes the metadata; a confidential client gets a secret that never expires and can use it")
    func confidentialRegistration() async throws {
        try await Fixture.with(Self.withResource()) { provider in
            let (status, body) = try await Self.register(
                provider,
                #"{"redirect_uris":["https://app.example.com/cb"],"application_type":"web","client_name":"Web app","#
                    + #""grant_types":["authorization_code","client_credentials"],"scope":"api.read openid"}"#)
            #expect(status == 201)
            #expect(body["token_endpoint_auth_method"] == .string("client_secret_basic")) // RFC 7591 §2's default
            #expect(body["client_secret_expires_at"] == .number(0) && body["client_id_issued_at"]?.numberValue != nil)
            #expect(body["client_name"] == .string("Web app") && body["scope"] == .string("api.read openid"))
            #expect(body["redirect_uris"] == .array([.string("https://app.example.com/cb")]))
            #expect(body["response_types"] == .array([.string("code")]) && body["application_type"] == .string("web"))
            let id = try #require(body["client_id"]?.stringValue)
            let secret = try #require(body["client_secret"]?.stringValue)
            let token = try await Wire(provider: provider).post(
                "/token", [("grant_type", "client_credentials"), ("scope", "api.read")], basic: (id, secret))
            #expect(token.status == 200 && Wire.json(token)["scope"] == .string("api.read"))
        }
    }

    @Test("a registered client gets only the scopes allowed to registered clients, never a configured client's admin")
    func registeredScopes() async throws {
        var configuration = Self.withResource()
        configuration.clients.append(
            ProviderClient(id: "admin-tool", redirectURIs: ["http://127.0.0.1/callback"], scopes: ["openid", "admin"]))
        try await Fixture.with(configuration) { provider in
            let (status, body) = try await Self.register(
                provider,
                #"{"redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none","scope":"openid admin api.read"}"#)
            #expect(status == 201 && body["scope"] == .string("api.read openid"))
            let (_, all) = try await Self.register(
                provider, #"{"redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none"}"#)
            #expect(all["scope"] == .string("api.read email offline_access openid profile"))
            let id = try #require(body["client_id"]?.stringValue)
            let client = try OAuthClient(metadata: try await ProviderMetadata.discover(authorizationServer: provider.issuer), clientID: id)
            let request = try client.authorizationRequest(
                redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: ["openid", "admin"])
            let location = try await HeadlessBrowser().redirectLocation(of: request.url)
            let error = #expect(throws: AuthFlowError.self) { try request.validateCallback(location) }
            #expect(
                error?.oauth?.error == "invalid_scope" && error?.oauth?.errorDescription == "the client may not request the scope admin")
        }
    }

    @Test(
        "each rule refuses its metadata with RFC 7591 §3.2.2's error",
        arguments: [
            (
                #"{"redirect_uris":["http://app.example.com/cb"],"application_type":"native","token_endpoint_auth_method":"none"}"#,
                "invalid_redirect_uri", "loopback host"
            ),
            (#"{"redirect_uris":["http://127.0.0.1/cb"],"application_type":"web"}"#, "invalid_redirect_uri", "must use https"),
            (#"{"redirect_uris":["https://localhost/cb"],"application_type":"web"}"#, "invalid_redirect_uri", "loopback host"),
            (
                #"{"redirect_uris":["myapp://cb"],"application_type":"native","token_endpoint_auth_method":"none"}"#,
                "invalid_redirect_uri", "reverse-DNS"
            ),
            (#"{"redirect_uris":["https://app.example.com/cb#x"]}"#, "invalid_redirect_uri", "fragment"),
            (#"{"redirect_uris":["/cb"],"application_type":"native"}"#, "invalid_redirect_uri", "not an absolute URI"),
            (#"{"token_endpoint_auth_method":"none"}"#, "invalid_redirect_uri", "redirect_uris is required"),
            (#"{"redirect_uris":["https://a.example/cb"],"response_types":["token"]}"#, "invalid_client_metadata", "response type token"),
            (#"{"redirect_uris":["https://a.example/cb"],"grant_types":["implicit"]}"#, "invalid_client_metadata", "grant type implicit"),
            (#"{"grant_types":["client_credentials"],"response_types":["code"]}"#, "invalid_client_metadata", "disagree"),
            (
                #"{"grant_types":["client_credentials"],"response_types":[],"token_endpoint_auth_method":"none"}"#,
                "invalid_client_metadata", "confidential client"
            ),
            (
                #"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"tls_client_auth"}"#,
                "invalid_client_metadata", "not supported"
            ),
            (
                #"{"redirect_uris":["https://a.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}"#,
                "invalid_client_metadata", "needs jwks"
            ),
            (#"{"redirect_uris":["https://a.example/cb"],"application_type":"desktop"}"#, "invalid_client_metadata", "native or web"),
            (#"{"redirect_uris":"https://a.example/cb"}"#, "invalid_client_metadata", "array of strings"),
            (#"{"redirect_uris":["https://a.example/cb"],"client_id":"mine"}"#, "invalid_client_metadata", "assigned by the server"),
            (#"["https://a.example/cb"]"#, "invalid_client_metadata", "not a JSON object"),
            (#"{"redirect_uris":["https://a.example/cb"],"a":1,"a":2}"#, "invalid_client_metadata", "not a JSON object"),
        ])
    func refusals(json: String, error: String, words: String) async throws {
        try await Fixture.with { provider in
            let (status, body) = try await Self.register(provider, json)
            #expect(status == 400)
            #expect(body["error"] == .string(error))
            #expect(body["error_description"]?.stringValue?.contains(words) == true, "\(body)")
        }
    }

    @Test("a body that is not JSON, or over 64 KiB, is refused; GET is not allowed")
    func transportRules() async throws {
        try await Fixture.with { provider in
            let form = try await Self.register(provider, "redirect_uris=x", contentType: "application/x-www-form-urlencoded")
            #expect(form.status == 400 && form.body["error"] == .string("invalid_client_metadata"))
            let huge = #"{"redirect_uris":["https://a.example/cb"],"client_name":""# + String(repeating: "x", count: 70_000) + #""}"#
            let tooLarge = try await RawHTTP.send(
                port: provider.port, method: "POST", target: "/register", headers: [("Content-Type", "application/json")], body: huge)
            #expect(tooLarge.status == 413)
            #expect(try await Wire(provider: provider).get("/register").status == 405)
        }
    }

    @Test("the engine reports the server's refusal as an OAuth error")
    func engineSeesTheError() async throws {
        try await Fixture.with { provider in
            let metadata = try await ProviderMetadata.discover(authorizationServer: provider.issuer)
            // The engine checks native redirect URIs itself; a web client's are the server's to refuse.
            let request = ClientRegistrationRequest(redirectURIs: [URL(string: "http://127.0.0.1/cb")!], applicationType: .web)
            let error = await #expect(throws: AuthFlowError.self) { try await ClientRegistration.register(request, with: metadata) }
            #expect(error?.category == .oauthError && error?.oauth?.error == "invalid_redirect_uri")
        }
    }

    @Test("without an application_type, loopback and private-use redirect URIs make a native client; localhost matches exactly")
    func inferredNative() async throws {
        try await Fixture.with { provider in
            let (status, body) = try await Self.register(
                provider, #"{"redirect_uris":["http://localhost:33418/cb","com.example.app:/cb"],"token_endpoint_auth_method":"none"}"#)
            #expect(status == 201 && body["application_type"] == .string("native") && body["client_secret"] == nil)
            let id = try #require(body["client_id"]?.stringValue)
            let wire = Wire(provider: provider)
            let base: [(String, String)] = [
                ("response_type", "code"), ("client_id", id), ("code_challenge", someChallenge), ("code_challenge_method", "S256"),
            ]
            let exact = try await wire.get("/authorize", base + [("redirect_uri", "http://localhost:33418/cb")])
            #expect(exact.status == 302)
            let otherPort = try await wire.get("/authorize", base + [("redirect_uri", "http://localhost:40000/cb")])
            #expect(otherPort.status == 400)
        }
    }
}
#endif
