#if MCP && EmbeddedProvider && Hummingbird
import AuthFlow
import AuthFlowTestSupport
import AuthFlowMCP
import AuthFlowProvider
import Foundation
import MCP
import Testing

/// The swift-sdk's `Client` and `HTTPClientTransport`, authorized by
/// ``AuthSessionAuthorizer``, against a protected MCP server on 127.0.0.1
/// with tokens from the embedded provider.
@Suite("AuthFlowMCP: the swift-sdk's HTTP transport signed in by URL")
struct AuthSessionAuthorizerTests {
    /// A connected client for `endpoint`, run through `body`, then disconnected.
    static func connected<T>(
        _ endpoint: URL, _ authorizer: AuthSessionAuthorizer, _ body: (Client) async throws -> T
    ) async throws -> T {
        let client = Client(name: "AuthFlowMCPTests", version: "1.0.0")
        let transport = HTTPClientTransport(endpoint: endpoint, streaming: false, authorizer: authorizer)
        do {
            _ = try await client.connect(transport: transport)
            let value = try await body(client)
            await client.disconnect()
            return value
        } catch {
            await client.disconnect()
            throw error
        }
    }

    static func text(_ content: [Tool.Content]) -> String? {
        guard case .text(let text, _, _)? = content.first else { return nil }
        return text
    }

    static func temporaryStore() -> FileCredentialStore {
        FileCredentialStore(
            url: FileManager.default.temporaryDirectory.appending(path: "authflow-mcp-\(UUID().uuidString)").appending(path: "session.json")
        )
    }

    @Test(
        "401 → sign-in by the server's URL alone → the call succeeds; the session, registration and resource are stored; a relaunch signs in no more"
    )
    func signInByURLThenRelaunch() async throws {
        try await MCPTestServer.with { server in
            let store = Self.temporaryStore()
            let signIn = HeadlessSignIn()
            let authorizer = signIn.authorizer(store: store)
            let (tools, echoed) = try await Self.connected(server.endpoint, authorizer) { client in
                let tools = try await client.listTools().tools.map(\.name)
                let result = try await client.callTool(name: "echo", arguments: ["text": "hello"])
                return (tools, Self.text(result.content))
            }
            #expect(tools == ["echo", "admin_echo", "stubborn_echo"])
            #expect(echoed == "echo: hello")
            #expect(signIn.asked.withLock { $0 } == [["mcp:tools"]])
            let seen = server.seen.withLock { $0 }
            #expect(seen.first == .some(nil) && seen.dropFirst().allSatisfy { $0?.hasPrefix("Bearer ") == true })
            let record = try #require(try await store.load())
            #expect(record.resource?.url == server.endpoint)
            let registration = try #require(record.registration)
            #expect(registration.clientID == record.clientID && registration.issuer == server.provider.issuer)

            // Another launch: the stored session, no sign-in, no new registration.
            let relaunched = HeadlessSignIn()
            let again = try await Self.connected(server.endpoint, relaunched.authorizer(store: store)) { client in
                Self.text(try await client.callTool(name: "echo", arguments: ["text": "again"]).content)
            }
            #expect(again == "echo: again" && relaunched.count == 0)
            #expect(try await store.load()?.registration == registration)
            #expect(server.seen.withLock { $0 }.dropFirst(seen.count).allSatisfy { $0 == seen.last })
        }
    }

    @Test("a refused token is refreshed once without the user; a refused refresh signs in once; a refused new sign-in ends the request")
    func refusedTokenRefreshesOnce() async throws {
        try await MCPTestServer.with { server in
            let store = MemoryCredentialStore()
            let signIn = HeadlessSignIn()
            let authorizer = signIn.authorizer(store: store)
            try await Self.connected(server.endpoint, authorizer) { client in
                _ = try await client.callTool(name: "echo", arguments: ["text": "one"])
                let before = try #require(try await store.load()?.credentials)
                server.refused.withLock { _ = $0.insert(before.accessToken) }
                #expect(Self.text(try await client.callTool(name: "echo", arguments: ["text": "two"]).content) == "echo: two")
                let after = try #require(try await store.load()?.credentials)
                #expect(after.accessToken != before.accessToken && after.token.refreshToken != before.token.refreshToken)
                #expect(signIn.count == 1)

                server.refused.withLock { _ = $0.insert("*") }
                let sent = server.seen.withLock { $0.count }
                await #expect(throws: MCPError.self) {
                    _ = try await client.callTool(name: "echo", arguments: ["text": "three"])
                }
                // The refreshed token refused: one sign-in; its token refused too: the request fails.
                #expect(server.seen.withLock { $0.count } == sent + 2)
                #expect(signIn.count == 2)
                let failure = try #require(authorizer.lastFailure)
                #expect(failure.category == .invalidResponse && failure.oauth?.error == "invalid_token")
                #expect(failure.message == "the MCP server refused the access token of a new sign-in")
            }
        }
    }

    @Test("403 insufficient_scope → one step-up with the granted scopes and the required one → the call succeeds")
    func stepUpOnce() async throws {
        try await MCPTestServer.with { server in
            let store = MemoryCredentialStore()
            let signIn = HeadlessSignIn()
            try await Self.connected(server.endpoint, signIn.authorizer(store: store)) { client in
                let result = try await client.callTool(name: "admin_echo", arguments: ["text": "root"])
                #expect(Self.text(result.content) == "admin_echo: root")
                #expect(signIn.asked.withLock { $0 } == [["mcp:tools"], ["mcp:tools", "mcp:admin"]])
                #expect(try await store.load()?.credentials.scopes.contains("mcp:admin") == true)
                // Granted now: no further sign-in.
                _ = try await client.callTool(name: "admin_echo", arguments: ["text": "again"])
                #expect(signIn.count == 2)
            }
        }
    }

    @Test("a server that keeps answering insufficient_scope gets one step-up, then the call fails with the typed insufficient_scope error")
    func endlessStepUpStops() async throws {
        try await MCPTestServer.with { server in
            let signIn = HeadlessSignIn()
            let authorizer = signIn.authorizer(store: MemoryCredentialStore())
            try await Self.connected(server.endpoint, authorizer) { client in
                let before = server.seen.withLock { $0.count }
                await #expect(throws: MCPError.self) {
                    _ = try await client.callTool(name: "stubborn_echo", arguments: ["text": "x"])
                }
                #expect(signIn.asked.withLock { $0 } == [["mcp:tools"], ["mcp:tools", "mcp:admin"]])
                #expect(server.seen.withLock { $0.count } == before + 2)
                let failure = try #require(authorizer.lastFailure)
                #expect(failure.category == .oauthError && failure.oauth?.error == "insufficient_scope")
                #expect(failure.message.contains("mcp:admin"))
                // Asking again would not help: the next call fails at once, without the user.
                await #expect(throws: MCPError.self) {
                    _ = try await client.callTool(name: "stubborn_echo", arguments: ["text": "y"])
                }
                #expect(signIn.count == 2 && server.seen.withLock { $0.count } == before + 3)
            }
        }
    }

    @Test("the token goes to the server's origin only: another origin's transport gets no Authorization, and its sign-in is refused")
    func tokenStaysWithItsOrigin() async throws {
        try await MCPTestServer.with { server in
            let signIn = HeadlessSignIn()
            let authorizer = signIn.authorizer(store: MemoryCredentialStore())
            _ = try await Self.connected(server.endpoint, authorizer) { try await $0.listTools() }
            let port = try #require(server.endpoint.port)
            #expect(authorizer.authorizationHeader(for: server.endpoint)?.hasPrefix("Bearer ") == true)
            for other in ["http://localhost:\(port)/mcp", "http://127.0.0.1:\(port + 1)/mcp", "https://127.0.0.1:\(port)/mcp"] {
                #expect(authorizer.authorizationHeader(for: URL(string: other)!) == nil, "\(other)")
            }
            // The same server under another name is another origin: no token is sent there, and its
            // metadata (which names the 127.0.0.1 resource) is refused rather than trusted.
            let before = server.seen.withLock { $0.count }
            await #expect(throws: MCPError.self) {
                _ = try await Self.connected(URL(string: "http://localhost:\(port)/mcp")!, authorizer) { try await $0.listTools() }
            }
            let seen = server.seen.withLock { $0 }.dropFirst(before)
            #expect(!seen.isEmpty && seen.allSatisfy { $0 == nil })
            #expect(signIn.count == 1 && authorizer.lastFailure != nil)
        }
    }

    @Test("an MCP endpoint on plain http off a loopback host is refused before any request")
    func insecureEndpoint() throws {
        let authorizer = HeadlessSignIn().authorizer(store: MemoryCredentialStore())
        #expect(throws: AuthFlowError.self) { try authorizer.validateEndpointSecurity(for: URL(string: "http://mcp.example.com/mcp")!) }
        try authorizer.validateEndpointSecurity(for: URL(string: "https://mcp.example.com/mcp")!)
    }
}
#endif
