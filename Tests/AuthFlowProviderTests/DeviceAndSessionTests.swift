#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

@Suite("Device authorization, userinfo, end session, discovery")
struct DeviceAndSessionTests {
    private static let deviceGrant = "urn:ietf:params:oauth:grant-type:device_code"

    private func startDevice(_ wire: Wire) async throws -> (deviceCode: String, userCode: String) {
        let response = try await wire.post("/device_authorization", [("client_id", "authflow-demo"), ("scope", "openid profile")])
        let body = Wire.json(response)
        #expect(body["verification_uri"] == .string(wire.provider.issuer.identifier + "/device"))
        return (try #require(body["device_code"]?.stringValue), try #require(body["user_code"]?.stringValue))
    }

    private func poll(_ wire: Wire, _ deviceCode: String) async throws -> [String: JSONMemberValue] {
        Wire.json(
            try await wire.post("/token", [("grant_type", Self.deviceGrant), ("device_code", deviceCode), ("client_id", "authflow-demo")]))
    }

    @Test("device code: authorization_pending, slow_down, approval, redeemed once")
    func deviceApproved() async throws {
        // A 2 s interval, so the back-to-back second poll is "too fast" even on a loaded machine.
        try await Fixture.with(lifetimes: TokenLifetimes(devicePollingInterval: 2, deviceSlowDownIncrement: 0.2)) { provider in
            let wire = Wire(provider: provider)
            let (deviceCode, userCode) = try await startDevice(wire)
            #expect(try await poll(wire, deviceCode)["error"] == .string("authorization_pending"))
            #expect(try await poll(wire, deviceCode)["error"] == .string("slow_down"))
            let page = try await wire.get("/device", [("user_code", userCode)])
            #expect(page.status == 200 && String(decoding: page.body, as: UTF8.self).contains(userCode))
            let approved = try await wire.post("/device", [("user_code", userCode.lowercased()), ("decision", "allow")])
            #expect(approved.status == 200)
            try await Task.sleep(nanoseconds: 2_300_000_000) // interval 2 s + slow_down 0.2 s
            let tokens = try await poll(wire, deviceCode)
            #expect(tokens["access_token"] != nil && tokens["id_token"] != nil)
            try await Task.sleep(nanoseconds: 2_300_000_000)
            #expect(try await poll(wire, deviceCode)["error"] == .string("invalid_grant"))
        }
    }

    @Test("device code: access_denied and expired_token")
    func deviceDeniedAndExpired() async throws {
        // Denial with the usual code lifetime, so a loaded machine cannot turn it into an expiry.
        try await Fixture.with(lifetimes: TokenLifetimes(devicePollingInterval: 0)) { provider in
            let wire = Wire(provider: provider)
            let denied = try await startDevice(wire)
            _ = try await wire.post("/device", [("user_code", denied.userCode), ("decision", "deny")])
            #expect(try await poll(wire, denied.deviceCode)["error"] == .string("access_denied"))
        }
        try await Fixture.with(lifetimes: TokenLifetimes(deviceCode: 0.3, devicePollingInterval: 0)) { provider in
            let wire = Wire(provider: provider)
            let late = try await startDevice(wire)
            try await Task.sleep(nanoseconds: 350_000_000)
            #expect(try await poll(wire, late.deviceCode)["error"] == .string("expired_token"))
        }
    }

    @Test("userinfo needs a live bearer token with openid")
    func userinfo() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let none = try await wire.get("/userinfo")
            #expect(none.status == 401 && none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            let bad = try await wire.get("/userinfo", headers: [("Authorization", "Bearer nope")])
            #expect(bad.status == 401 && bad.header("WWW-Authenticate")?.contains("invalid_token") == true)
        }
    }

    @Test("end session: back to a registered URI with state; an unregistered one gets an error page")
    func endSession() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let back = try await wire.get(
                "/end-session",
                [("client_id", "post-client"), ("post_logout_redirect_uri", "https://app.example.com/bye"), ("state", "s1")])
            #expect(back.status == 302 && back.header("Location") == "https://app.example.com/bye?state=s1")
            let evil = try await wire.get(
                "/end-session", [("client_id", "post-client"), ("post_logout_redirect_uri", "https://evil.example/")])
            #expect(evil.status == 400 && evil.header("Location") == nil)
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let credentials = try await client.exchange(authorize(client).1)
            let request = try #require(
                client.endSessionRequest(
                    idTokenHint: credentials.token.idToken, postLogoutRedirectURI: URL(string: "http://127.0.0.1:5000/callback")!))
            let state = try #require(request.state)
            let response = try await HeadlessBrowser().redirectLocation(of: try request.url())
            #expect(response.absoluteString == "http://127.0.0.1:5000/callback?state=\(state)")
            try request.validateRedirect(response)
        }
    }

    @Test("RFC 8414 metadata equals the OpenID configuration; the JWK Set has RS256 and ES256 keys")
    func metadata() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let openid = Wire.json(try await wire.get("/.well-known/openid-configuration"))
            let oauth = Wire.json(try await wire.get("/.well-known/oauth-authorization-server"))
            #expect(openid == oauth)
            #expect(openid["code_challenge_methods_supported"] == .array([.string("S256")]))
            #expect(openid["authorization_response_iss_parameter_supported"] == .bool(true))
            let keys = Wire.json(try await wire.get("/jwks"))["keys"]?.arrayValue ?? []
            #expect(Set(keys.compactMap { $0.objectValue?["alg"]?.stringValue }) == ["RS256", "ES256"])
            #expect(keys.allSatisfy { $0.objectValue?["d"] == nil })
        }
    }

    @Test("a JSON configuration file becomes a configuration")
    func configurationFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-provider-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("provider.json")
        try Data(
            """
            {"port": 0, "sign_in": "login_page",
             "clients": [{"client_id": "app", "client_secret": "pw", "token_endpoint_auth_method": "client_secret_post",
                          "redirect_uris": ["http://127.0.0.1/cb"], "scope": "openid email", "id_token_signed_response_alg": "ES256"}],
             "users": [{"sub": "u1", "username": "alice", "password": "pw", "claims": {"email": "a@example.com"}}],
             "lifetimes": {"access_token": 120}}
            """.utf8
        ).write(to: file)
        let configuration = try ProviderConfigurationFile.load(file)
        #expect(configuration.signIn == .loginPage && configuration.lifetimes.accessToken == 120)
        #expect(
            configuration.clients.first?.authentication == .clientSecretPost
                && configuration.clients.first?.idTokenSigningAlgorithm == .es256)
        #expect(configuration.users.first?.username == "alice")
        try Data(#"{"clients": [{"secret": "x"}]}"#.utf8).write(to: file)
        #expect(throws: ProviderConfigurationError.self) { try ProviderConfigurationFile.load(file) }
    }
}
#endif
