#if MCP && EmbeddedProvider && Hummingbird
import AuthFlow
import AuthFlowMCP
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import MCP
import Testing

/// Enterprise-managed MCP authorization: the swift-sdk's HTTP transport with
/// an authorizer whose tokens come from identity assertions (ID-JAG) of the
/// user's session at an identity provider, presented at the MCP server's
/// configured authorization server. Two embedded providers and the test MCP
/// server, on loopback.
@Suite("AuthFlowMCP: enterprise-managed authorization")
struct EnterpriseAuthorizerTests {
    static let app = ProviderClient(
        id: "desktop-app", secret: "desktop-secret", authentication: .clientSecretBasic, redirectURIs: ["http://127.0.0.1/callback"],
        grantTypes: [GrantType.authorizationCode, GrantType.refreshToken, GrantType.tokenExchange],
        scopes: ["openid", "profile", "offline_access"])
    static let toolsClient = ProviderClient(
        id: "mcp-tools-client", secret: "tools-secret", authentication: .clientSecretPost, grantTypes: [GrantType.jwtBearer],
        scopes: ["mcp:tools", "mcp:admin"])

    /// The MCP server (its authorization server trusting the identity
    /// provider) and the identity provider, whose policy lets `app` get
    /// grants for that server and the MCP endpoint with `scopes`.
    static func withEnterprise<T>(
        scopes: Set<String> = ["mcp:tools", "mcp:admin"], _ body: (MCPTestServer, EmbeddedProvider) async throws -> T
    ) async throws -> T {
        let probe = try await EmbeddedProvider.start(ProviderConfiguration.demo)
        let idpPort = probe.port
        await probe.stop()
        let server = try await MCPTestServer.start { configuration in
            configuration.clients.append(toolsClient)
            configuration.trustedIdentityProviders = ["http://127.0.0.1:\(idpPort)"]
        }
        return try await server.stopping { server in
            var idp = ProviderConfiguration.demo
            idp.port = idpPort
            idp.clients.append(app)
            idp.identityAssertionPolicy = IdentityAssertionPolicy([
                .init(
                    clientID: app.id, authorizationServer: server.provider.issuer.identifier,
                    clientIDAtAuthorizationServer: toolsClient.id, resources: [server.endpoint.absoluteString], scopes: scopes)
            ])
            let provider = try await EmbeddedProvider.start(idp)
            do {
                let value = try await body(server, provider)
                await provider.stop()
                return value
            } catch {
                await provider.stop()
                throw error
            }
        }
    }

    /// The user's session at the identity provider (automatic sign-in in the headless browser).
    static func companySession(_ idp: EmbeddedProvider) async throws -> AuthSession {
        let client = try await OAuthClient(
            issuer: idp.issuer, clientID: app.id, authentication: .clientSecretBasic(secret: app.secret!))
        let request = try client.authorizationRequest(
            redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: ["openid", "profile", "offline_access"])
        let grant = try request.validateCallback(try await HeadlessBrowser().redirectLocation(of: request.url))
        return try await AuthSession.start(client: client, credentials: try await client.exchange(grant), store: MemoryCredentialStore())
    }

    static func authorizer(_ server: MCPTestServer, _ idp: EmbeddedProvider, store: any CredentialStore = MemoryCredentialStore())
        async throws -> AuthSessionAuthorizer
    {
        let tools = try await OAuthClient(
            issuer: server.provider.issuer, clientID: toolsClient.id, authentication: .clientSecretPost(secret: toolsClient.secret!))
        let enterprise = try EnterpriseAuthorization(
            identityProvider: try await companySession(idp), authorizationServer: tools, resource: ResourceIdentifier(server.endpoint))
        return AuthSessionAuthorizer(store: store, enterprise: enterprise, scopes: ["mcp:tools"])
    }

    @Test("401 → an identity assertion from the company session → the call succeeds, no browser; a refused token gets a new one")
    func callsAToolWithAnIdentityAssertion() async throws {
        try await Self.withEnterprise { server, idp in
            let store = MemoryCredentialStore()
            let authorizer = try await Self.authorizer(server, idp, store: store)
            let echoed = try await AuthSessionAuthorizerTests.connected(server.endpoint, authorizer) { client in
                let first = try await client.callTool(name: "echo", arguments: ["text": "hello"])
                // The server stops taking that token: the authorizer asks the identity provider again.
                let token = try #require(authorizer.authorizationHeader(for: server.endpoint)).split(separator: " ").last.map(String.init)!
                server.refused.withLock { _ = $0.insert(token) }
                let second = try await client.callTool(name: "echo", arguments: ["text": "again"])
                #expect(authorizer.authorizationHeader(for: server.endpoint) != "Bearer \(token)")
                return [AuthSessionAuthorizerTests.text(first.content), AuthSessionAuthorizerTests.text(second.content)]
            }
            #expect(echoed == ["echo: hello", "echo: again"])
            let record = try #require(try await store.load())
            let claims = try CompactJWS(record.credentials.accessToken).claims
            #expect(claims["iss"] == .string(server.provider.issuer.identifier))
            #expect(claims["aud"] == .string(server.endpoint.absoluteString))
            #expect(claims["sub"] == .string("demo"))
            #expect(claims["client_id"] == .string(Self.toolsClient.id))
            #expect(record.credentials.token.refreshToken == nil)
            let seen = server.seen.withLock { $0 }
            #expect(seen.first == .some(nil) && seen.dropFirst().allSatisfy { $0?.hasPrefix("Bearer ") == true })
        }
    }

    @Test("a tool that needs more scope gets a new assertion with it; one the policy does not allow ends with the provider's refusal")
    func stepUpAsksTheIdentityProvider() async throws {
        try await Self.withEnterprise { server, idp in
            let authorizer = try await Self.authorizer(server, idp)
            let admin = try await AuthSessionAuthorizerTests.connected(server.endpoint, authorizer) { client in
                AuthSessionAuthorizerTests.text(try await client.callTool(name: "admin_echo", arguments: ["text": "root"]).content)
            }
            #expect(admin == "admin_echo: root")
        }
        try await Self.withEnterprise(scopes: ["mcp:tools"]) { server, idp in
            let authorizer = try await Self.authorizer(server, idp)
            await #expect(throws: (any Error).self) {
                try await AuthSessionAuthorizerTests.connected(server.endpoint, authorizer) { client in
                    _ = try await client.callTool(name: "admin_echo", arguments: ["text": "root"])
                }
            }
            #expect(authorizer.lastFailure?.oauth?.error == "invalid_scope")
        }
    }
}
#endif
