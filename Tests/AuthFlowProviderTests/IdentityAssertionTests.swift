#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// Identity Assertion JWT Authorization Grants (ID-JAG) end to end, with two
/// embedded providers on loopback: the enterprise identity provider issues
/// the grant by token exchange, a resource authorization server takes it
/// with the JWT bearer grant. The engine's client checks both legs.
@Suite("Identity assertion grants (ID-JAG)")
struct IdentityAssertionTests {
    static let tools = "https://tools.example.com/mcp"
    static let toolsClient = ProviderClient(
        id: "tools-client", secret: "tools-secret", authentication: .clientSecretBasic, grantTypes: [GrantType.jwtBearer],
        scopes: ["tools:call", "tools:list"])

    /// The identity provider (the demo backend client may get grants for
    /// `authorizationServer`) and the resource authorization server at
    /// `authorizationServer`'s port, trusting it.
    static func withProviders<T>(
        lifetime: TimeInterval = 300, _ body: (_ idp: EmbeddedProvider, _ server: EmbeddedProvider) async throws -> T
    ) async throws -> T {
        let port = try await freePort()
        let serverIssuer = "http://127.0.0.1:\(port)"
        var idp = Fixture.configuration()
        idp.identityAssertionPolicy = IdentityAssertionPolicy(
            [
                .init(
                    clientID: Fixture.backend.id, authorizationServer: serverIssuer, clientIDAtAuthorizationServer: toolsClient.id,
                    resources: [tools], scopes: ["tools:call"])
            ], lifetime: lifetime)
        return try await Fixture.with(idp) { idp in
            var server = Fixture.configuration()
            server.port = port
            server.clients.append(toolsClient)
            server.trustedIdentityProviders = [idp.issuer.identifier]
            return try await Fixture.with(server) { server in try await body(idp, server) }
        }
    }

    /// A port nothing listens on now (a provider's, stopped).
    static func freePort() async throws -> Int {
        let probe = try await EmbeddedProvider.start(Fixture.configuration())
        let port = probe.port
        await probe.stop()
        return port
    }

    /// The demo backend client at the identity provider, signed in as `demo`.
    static func signedIn(at idp: EmbeddedProvider) async throws -> (OAuthClient, String) {
        let client = try await OAuthClient(
            issuer: idp.issuer, clientID: Fixture.backend.id, authentication: .clientSecretBasic(secret: Fixture.backend.secret!))
        let credentials = try await client.exchange(authorize(client, scopes: ["openid", "profile"]).1)
        return (client, try #require(credentials.token.idToken))
    }

    static func toolsServerClient(_ server: EmbeddedProvider, id: String = toolsClient.id, secret: String = "tools-secret")
        async throws -> OAuthClient
    {
        try await OAuthClient(issuer: server.issuer, clientID: id, authentication: .clientSecretBasic(secret: secret))
    }

    static var toolsResource: ResourceIdentifier { try! ResourceIdentifier(URL(string: tools)!) }

    @Test("the user's ID token becomes a grant for the tools server and then its access token, without a browser; once only")
    func endToEnd() async throws {
        try await Self.withProviders { idp, server in
            let (client, idToken) = try await Self.signedIn(at: idp)
            let assertion = try await client.requestIdentityAssertion(
                for: server.issuer, clientID: Self.toolsClient.id, resource: Self.toolsResource, idToken: idToken, scopes: ["tools:call"])
            #expect(assertion.issuer == idp.issuer.identifier)
            #expect(assertion.subject == "demo")
            #expect(assertion.authorizationServer == server.issuer.identifier)
            #expect(assertion.clientID == Self.toolsClient.id)
            #expect(assertion.resources == [Self.tools])
            #expect(assertion.scopes == ["tools:call"])
            #expect(assertion.expiresAt.timeIntervalSinceNow <= 300)
            #expect(try CompactJWS(assertion.token).header["typ"] == .string("oauth-id-jag+jwt"))
            #expect(!"\(assertion)".contains(assertion.token) && !String(reflecting: assertion).contains(assertion.token))

            let tools = try await Self.toolsServerClient(server)
            let credentials = try await tools.redeem(assertion)
            #expect(credentials.token.refreshToken == nil)
            #expect(credentials.token.scopes == ["tools:call"])
            let claims = try CompactJWS(credentials.accessToken).claims
            #expect(claims["iss"] == .string(server.issuer.identifier))
            #expect(claims["sub"] == .string("demo"))
            #expect(claims["aud"] == .string(Self.tools))
            #expect(claims["client_id"] == .string(Self.toolsClient.id))

            // The same grant again: its jti was used.
            let replay = await #expect(throws: AuthFlowError.self) { _ = try await tools.redeem(assertion) }
            #expect(replay?.oauth?.error == "invalid_grant")
            #expect(replay?.oauth?.errorDescription?.contains("already used") == true)
        }
    }

    @Test("both providers say what they offer: the grant profile and the JWT bearer grant only where identity providers are trusted")
    func metadata() async throws {
        try await Self.withProviders { idp, server in
            let serverMetadata = Wire.json(try await Wire(provider: server).get("/.well-known/openid-configuration"))
            #expect(
                serverMetadata["authorization_grant_profiles_supported"] == .array([.string("urn:ietf:params:oauth:grant-profile:id-jag")]))
            #expect(serverMetadata["grant_types_supported"]?.arrayValue?.contains(.string(GrantType.jwtBearer)) == true)
            let idpMetadata = Wire.json(try await Wire(provider: idp).get("/.well-known/openid-configuration"))
            #expect(idpMetadata["authorization_grant_profiles_supported"] == nil)
            #expect(idpMetadata["grant_types_supported"]?.arrayValue?.contains(.string(GrantType.jwtBearer)) == false)
            // And it refuses the grant outright.
            let refused = try await Wire(provider: idp).post(
                "/token", [("grant_type", GrantType.jwtBearer), ("assertion", "a.b.c")],
                basic: (Fixture.backend.id, Fixture.backend.secret!))
            #expect(Wire.json(refused)["error"] == .string("unsupported_grant_type"))
        }
    }

    @Test("a grant for one authorization server is refused by another, by the client before sending and by the server if sent")
    func anotherServerRefusesIt() async throws {
        try await Self.withProviders { idp, server in
            let (client, idToken) = try await Self.signedIn(at: idp)
            let assertion = try await client.requestIdentityAssertion(
                for: server.issuer, clientID: Self.toolsClient.id, resource: Self.toolsResource, idToken: idToken)
            // A second authorization server that trusts the same identity provider and has a client of the same ID.
            var other = Fixture.configuration()
            other.clients.append(Self.toolsClient)
            other.trustedIdentityProviders = [idp.issuer.identifier]
            try await Fixture.with(other) { other in
                let otherClient = try await Self.toolsServerClient(other)
                let local = await #expect(throws: AuthFlowError.self) { _ = try await otherClient.redeem(assertion) }
                #expect(local?.category == .configuration)
                #expect(local?.message.contains("is for the authorization server \(server.issuer.identifier)") == true)
                let sent = await #expect(throws: AuthFlowError.self) {
                    _ = try await otherClient.jwtBearerGrant(assertion: assertion.token, resource: Self.toolsResource)
                }
                #expect(sent?.oauth?.error == "invalid_grant")
                #expect(sent?.oauth?.errorDescription?.contains("not addressed to \(other.issuer.identifier)") == true)
            }
            // The grant is still good where it belongs.
            _ = try await Self.toolsServerClient(server).redeem(assertion)
        }
    }

    @Test("the identity provider issues only what its policy allows, for its own ID tokens; the server no more than the grant")
    func identityProviderPolicy() async throws {
        try await Self.withProviders { idp, server in
            let (client, idToken) = try await Self.signedIn(at: idp)
            func refusal(_ request: TokenExchangeRequest) async -> OAuthErrorResponse? {
                let error = await #expect(throws: AuthFlowError.self) { () async throws in _ = try await client.exchangeToken(request) }
                return error?.oauth
            }
            let elsewhere = TokenExchangeRequest(
                subject: .init(idToken, type: .idToken), requestedTokenType: .idJAG, audiences: ["https://evil.example.com"])
            #expect(await refusal(elsewhere)?.error == "invalid_target")
            let otherResource = TokenExchangeRequest(
                subject: .init(idToken, type: .idToken), requestedTokenType: .idJAG, audiences: [server.issuer.identifier],
                resources: [try ResourceIdentifier(URL(string: "https://tools.example.com/admin")!)])
            #expect(await refusal(otherResource)?.error == "invalid_target")
            let moreScope = TokenExchangeRequest(
                subject: .init(idToken, type: .idToken), requestedTokenType: .idJAG, audiences: [server.issuer.identifier],
                scopes: ["tools:list"])
            #expect(await refusal(moreScope)?.error == "invalid_scope")
            let notIDToken = TokenExchangeRequest(
                subject: .init("opaque-token", type: .accessToken), requestedTokenType: .idJAG, audiences: [server.issuer.identifier])
            #expect(await refusal(notIDToken)?.error == "invalid_request")
            let forged = TokenExchangeRequest(
                subject: .init(String(idToken.dropLast(4)) + "AAAA", type: .idToken), requestedTokenType: .idJAG,
                audiences: [server.issuer.identifier])
            #expect(await refusal(forged)?.error == "invalid_request")
            // Asked for no scope and no resource: the rule's scopes and its only resource, never an open grant.
            let plain = try await client.requestIdentityAssertion(for: server.issuer, clientID: Self.toolsClient.id, idToken: idToken)
            #expect(plain.scopes == ["tools:call"] && plain.resources == [Self.tools])
            // The authorization server gives no more than the grant names, whatever the client is registered for.
            let wider = await #expect(throws: AuthFlowError.self) {
                _ = try await Self.toolsServerClient(server).redeem(plain, scopes: ["tools:list"])
            }
            #expect(wider?.oauth?.error == "invalid_scope")
            // A client without a rule gets none, even with an ID token of its own.
            let odd = try await OAuthClient(
                issuer: idp.issuer, clientID: Fixture.oddID, authentication: .clientSecretBasic(secret: Fixture.oddSecret))
            let oddIDToken = try #require(try await odd.exchange(authorize(odd, scopes: ["openid"]).1).token.idToken)
            let oddRefusal = await #expect(throws: AuthFlowError.self) {
                _ = try await odd.requestIdentityAssertion(for: server.issuer, clientID: Self.toolsClient.id, idToken: oddIDToken)
            }
            #expect(oddRefusal?.oauth?.error == "invalid_target")
        }
    }

    @Test("the authorization server takes a grant only from a confidential client it names, for the resource it names, short-lived")
    func authorizationServerRules() async throws {
        try await Self.withProviders(lifetime: 600) { idp, server in
            let (client, idToken) = try await Self.signedIn(at: idp)
            // Issued for ten minutes by this identity provider's policy: longer than the server accepts.
            let token = try await client.exchangeToken(
                TokenExchangeRequest(
                    subject: .init(idToken, type: .idToken), requestedTokenType: .idJAG, audiences: [server.issuer.identifier],
                    resources: [Self.toolsResource])
            ).issuedToken
            let tools = try await Self.toolsServerClient(server)
            let long = await #expect(throws: AuthFlowError.self) {
                _ = try await tools.jwtBearerGrant(assertion: token, resource: Self.toolsResource)
            }
            #expect(long?.oauth?.error == "invalid_grant")
            #expect(long?.oauth?.errorDescription?.contains("lives longer than 300 seconds") == true)
            // The client checks the same rule before it presents anything.
            let checked = await #expect(throws: AuthFlowError.self) {
                _ = try await client.requestIdentityAssertion(
                    for: server.issuer, clientID: Self.toolsClient.id, resource: Self.toolsResource, idToken: idToken)
            }
            #expect(checked?.category == .jwtInvalid)
        }
        try await Self.withProviders { idp, server in
            let (client, idToken) = try await Self.signedIn(at: idp)
            let assertion = try await client.requestIdentityAssertion(
                for: server.issuer, clientID: Self.toolsClient.id, resource: Self.toolsResource, idToken: idToken)
            let wire = Wire(provider: server)
            // Another confidential client of the server: the grant names tools-client.
            let asOther = try await wire.post(
                "/token", [("grant_type", GrantType.jwtBearer), ("assertion", assertion.token)],
                basic: (Fixture.backend.id, Fixture.backend.secret!))
            #expect(Wire.json(asOther)["error"] == .string("invalid_grant"))
            #expect(Wire.json(asOther)["error_description"]?.stringValue?.contains("client_id") == true)
            // Another resource than the grant's.
            let otherResource = try await wire.post(
                "/token",
                [("grant_type", GrantType.jwtBearer), ("assertion", assertion.token), ("resource", "https://tools.example.com/admin")],
                basic: (Self.toolsClient.id, "tools-secret"))
            #expect(Wire.json(otherResource)["error"] == .string("invalid_grant"))
            // A grant from an identity provider the server does not trust: the server's own ID token.
            let (_, ownIDToken) = try await Self.signedIn(at: server)
            let untrusted = try await wire.post(
                "/token", [("grant_type", GrantType.jwtBearer), ("assertion", ownIDToken)], basic: (Self.toolsClient.id, "tools-secret"))
            #expect(Wire.json(untrusted)["error"] == .string("invalid_grant"))
            #expect(Wire.json(untrusted)["error_description"]?.stringValue?.contains("trusted identity provider") == true)
            // An ID token of the trusted identity provider is no grant (its typ).
            let idTokenAsGrant = try await wire.post(
                "/token", [("grant_type", GrantType.jwtBearer), ("assertion", idToken)], basic: (Self.toolsClient.id, "tools-secret"))
            #expect(Wire.json(idTokenAsGrant)["error"] == .string("invalid_grant"))
            // A public client may not present one (draft §9.1): not configured, not registered.
            var publicClient = Fixture.configuration()
            publicClient.clients.append(ProviderClient(id: "public-tools", grantTypes: [GrantType.jwtBearer]))
            await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(publicClient).stop() }
            let registered = try await RegistrationTests.register(
                server,
                #"{"grant_types":["urn:ietf:params:oauth:grant-type:jwt-bearer"],"response_types":[],"token_endpoint_auth_method":"none"}"#)
            #expect(registered.body["error"] == .string("invalid_client_metadata"))
            #expect(registered.body["error_description"]?.stringValue?.contains("JWT bearer grant needs a confidential client") == true)
            // The untouched grant still works, once.
            _ = try await Self.toolsServerClient(server).redeem(assertion)
        }
    }
}
#endif
