#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowLoopback
import AuthFlowProvider
import Foundation
import Testing

@Suite("Code flow through the engine")
struct CodeFlowTests {
    @Test("discovery, loopback sign-in, exchange, userinfo, refresh, revocation")
    func fullFlow() async throws {
        try await Fixture.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            #expect(client.metadata.authorizationResponseIssParameterSupported)
            #expect(client.metadata.revocationEndpoint != nil && client.metadata.introspectionEndpoint != nil)
            #expect(client.metadata.deviceAuthorizationEndpoint != nil && client.metadata.endSessionEndpoint != nil)
            let listener = try await LoopbackListener.start()
            defer { Task { await listener.close() } }
            let credentials = try await client.signIn(
                redirectURI: listener.redirectURI, scopes: ["openid", "profile", "email", "offline_access"],
                userAgent: LoopbackBrowserAgent(listener: listener))
            let claims = try #require(credentials.idToken)
            #expect(claims.subject == "demo" && claims.issuer == provider.issuer.identifier && claims.audience == ["authflow-demo"])
            #expect(claims.authTime != nil && claims.nonce != nil && claims.accessTokenHash != nil)
            #expect(claims.email == "demo@example.com")
            let info = try await client.userInfo(accessToken: credentials.accessToken, expectedSubject: "demo")
            #expect(info.name == "Demo User")
            let refreshed = try await client.refresh(credentials)
            #expect(refreshed.token.refreshToken != credentials.token.refreshToken)
            #expect(refreshed.idToken?.subject == "demo" && refreshed.idToken?.nonce == nil)
            try await client.revokeAll(refreshed)
            let error = await #expect(throws: AuthFlowError.self) { try await client.refresh(refreshed) }
            #expect(error?.oauth?.error == "invalid_grant")
            let revoked = await #expect(throws: AuthFlowError.self) {
                try await client.userInfo(accessToken: refreshed.accessToken, expectedSubject: nil)
            }
            #expect(revoked?.oauth?.error == "invalid_token")
        }
    }

    @Test("a confidential client with + / = % in id and secret authenticates with client_secret_basic")
    func basicAuthEncoding() async throws {
        try await Fixture.with { provider in
            let client = try await OAuthClient(
                issuer: provider.issuer, clientID: Fixture.oddID,
                authentication: .clientSecretBasic(secret: Fixture.oddSecret))
            let (_, grant) = try await authorize(client)
            let credentials = try await client.exchange(grant)
            #expect(credentials.subject == "demo")
            // The same secret without form-encoding: `+` then means a space, so it fails.
            let wire = Wire(provider: provider)
            let raw = try await wire.post(
                "/token", body: "grant_type=client_credentials", rawBasic: "\(FormEncoding.escape(Fixture.oddID)):\(Fixture.oddSecret)")
            #expect(raw.status == 401 && Wire.json(raw)["error"] == .string("invalid_client"))
        }
    }

    @Test("client_secret_post works for a client registered for it; basic is refused for that client")
    func clientSecretPost() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let post = try await wire.post(
                "/token",
                [
                    ("grant_type", "refresh_token"), ("refresh_token", "x"),
                    ("client_id", "post-client"), ("client_secret", "post-secret"),
                ])
            #expect(Wire.json(post)["error"] == .string("invalid_grant"))
            let basic = try await wire.post(
                "/token", [("grant_type", "refresh_token"), ("refresh_token", "x")], basic: ("post-client", "post-secret"))
            #expect(basic.status == 401 && Wire.json(basic)["error"] == .string("invalid_client"))
            #expect(basic.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        }
    }

    @Test("ES256 ID tokens verify through the engine")
    func es256() async throws {
        try await Fixture.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "es-client")
            let (_, grant) = try await authorize(client)
            let credentials = try await client.exchange(grant)
            #expect(try CompactJWS(#require(credentials.token.idToken)).algorithm == "ES256")
            #expect(credentials.subject == "demo")
        }
    }

    @Test("key rotation: a token signed by the new key verifies through the engine's JWKS refetch")
    func keyRotation() async throws {
        try await Fixture.with { provider in
            // A fresh client per sign-in (its own key cache refetches at most every 30 s);
            // `verifier` is the long-lived cache under test.
            func signIn() async throws -> OAuthCredentials {
                let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
                return try await client.exchange(authorize(client).1)
            }
            let jwksURI = provider.issuer.url.appendingPathComponent("jwks")
            let keys = try KeySetCache(jwksURI: jwksURI, transport: URLSessionTransport(), minimumRefetchInterval: 0)
            let verifier = IDTokenVerifier(keys: keys, clientSecret: nil)
            func verify(_ credentials: OAuthCredentials) async throws -> IDTokenClaims {
                try await verifier.verify(
                    #require(credentials.token.idToken),
                    rules: IDTokenRules(
                        issuer: provider.issuer, clientID: "authflow-demo", nonce: nil), accessToken: nil)
            }
            let before = try await signIn()
            _ = try await verify(before) // fetches the set with the old key
            let added = try await provider.rotateSigningKeys()
            let after = try await signIn()
            #expect(try CompactJWS(#require(after.token.idToken)).keyID == added.first)
            #expect(try await verify(after).subject == "demo") // unknown kid → refetch → verified
            #expect(try await verify(before).subject == "demo") // the old key is still published
            let retired = await provider.retireOldSigningKeys()
            #expect(retired.contains("test-rs256"))
            let late = try await signIn()
            #expect(try await verify(late).subject == "demo")
            let published = Wire.json(try await Wire(provider: provider).get("/jwks"))["keys"]?.arrayValue ?? []
            #expect(published.count == 2 && !published.contains { $0.objectValue?["kid"] == .string("test-rs256") })
        }
    }
}
#endif
