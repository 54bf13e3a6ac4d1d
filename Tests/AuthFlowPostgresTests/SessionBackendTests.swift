#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowPostgres
import AuthFlowProvider
import ExampleBackend
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Testing

/// The backend-for-frontend example (Examples/Backend) as it is deployed:
/// two instances, each with its own PostgreSQL pool, behind one table, the
/// embedded provider issuing 20-second access tokens and rotating refresh
/// tokens, and a client that holds nothing but the session cookie.
@Suite("Backend for frontend: two instances, one PostgreSQL", .enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct SessionBackendTests {
    static let redirect = "com.example.bff:/cb"

    @Test("a sign-in on one instance serves the other; concurrent calls on both make one refresh; a sign-out on one ends it on both")
    func twoInstances() async throws {
        var configuration = ProviderConfiguration.demo
        configuration.lifetimes.accessToken = 20
        configuration.clients.append(
            ProviderClient(id: "com.example.bff", secret: "bff-secret", authentication: .clientSecretBasic, redirectURIs: [Self.redirect]))
        let provider = try await EmbeddedProvider.start(configuration)
        defer { Task { await provider.stop() } }
        let counter = RefreshCounter()
        let table = TestDatabase.freshTable()
        try await TestDatabase.withClient { poolA in
            try await TestDatabase.withClient { poolB in
                let a = try await Self.backend(provider, pool: poolA, table: table, transport: counter)
                let b = try await Self.backend(provider, pool: poolB, table: table, transport: counter)
                try await Self.serving(a, b) { urlA, urlB in
                    // The app: authorization only, then the grant to instance A.
                    let app = try await OAuthClient(issuer: provider.issuer, clientID: "com.example.bff")
                    let request = try app.authorizationRequest(
                        redirectURI: URL(string: Self.redirect)!, scopes: ["openid", "profile", "email", "offline_access"])
                    let grant = try request.validateCallback(try await ProviderSession.RedirectReader().authorize(request))
                    let signIn = try await Self.call("POST", urlA.appending(path: "auth/complete"), body: JSONEncoder().encode(grant))
                    #expect(signIn.status == 200)
                    let setCookie = try #require(signIn.header("Set-Cookie"))
                    #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
                    let cookie = String(try #require(setCookie.split(separator: ";").first))
                    let signedInAt = Date()
                    #expect(!String(decoding: signIn.body, as: UTF8.self).contains("access_token"))

                    // The other instance serves the session.
                    let first = try await Self.call("GET", urlB.appending(path: "api/userinfo"), cookie: cookie)
                    #expect(first.status == 200)
                    #expect(String(decoding: first.body, as: UTF8.self).contains("\"sub\""))
                    #expect(counter.refreshes == 0)

                    // Once less than half of the 20-second token is left (a refresh is
                    // due): ten calls on each instance at once.
                    let due = signedInAt.addingTimeInterval(10.5).timeIntervalSinceNow
                    if due > 0 { try await Task.sleep(nanoseconds: UInt64(due * 1_000_000_000)) }
                    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                        for index in 0..<20 {
                            let url = (index % 2 == 0 ? urlA : urlB).appending(path: "api/userinfo")
                            group.addTask { try await Self.call("GET", url, cookie: cookie).status }
                        }
                        return try await group.reduce(into: [Int]()) { $0.append($1) }
                    }
                    #expect(statuses == Array(repeating: 200, count: 20))
                    #expect(counter.refreshes == 1)

                    // A sign-out on B ends the session on A too; an unknown cookie is not signed in.
                    #expect(try await Self.call("POST", urlB.appending(path: "auth/logout"), cookie: cookie).status == 200)
                    #expect(try await Self.call("GET", urlA.appending(path: "api/userinfo"), cookie: cookie).status == 401)
                    let forged = "authflow_session=" + String(repeating: "A", count: 43)
                    #expect(try await Self.call("GET", urlA.appending(path: "api/userinfo"), cookie: forged).status == 401)
                    #expect(counter.refreshes == 1)
                }
            }
        }
    }

    static func backend(_ provider: EmbeddedProvider, pool: PostgresClient, table: String, transport: RefreshCounter) async throws
        -> SessionBackend
    {
        let client = try await OAuthClient(
            issuer: provider.issuer, clientID: "com.example.bff", authentication: .clientSecretBasic(secret: "bff-secret"),
            transport: transport)
        let sessions = try PostgresSessionTable(client: pool, keys: TestDatabase.keys, name: table)
        var backend = SessionBackend(handoff: HandoffBackend(client: client), sessions: sessions)
        backend.secureCookie = false
        return backend
    }

    /// Runs both instances on ephemeral ports of 127.0.0.1 while `body` runs.
    static func serving(_ a: SessionBackend, _ b: SessionBackend, _ body: (URL, URL) async throws -> Void) async throws {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let group = ServiceGroup(
            services: [a.application { continuation.yield($0) }, b.application { continuation.yield($0) }],
            logger: Logger(label: "bff"))
        let running = Task { try? await group.run() }
        var iterator = ports.makeAsyncIterator()
        let first = try #require(await iterator.next())
        let second = try #require(await iterator.next())
        continuation.finish()
        do {
            try await body(URL(string: "http://127.0.0.1:\(first)/")!, URL(string: "http://127.0.0.1:\(second)/")!)
        } catch {
            await group.triggerGracefulShutdown()
            await running.value
            throw error
        }
        await group.triggerGracefulShutdown()
        await running.value
    }

    static func call(_ method: String, _ url: URL, cookie: String? = nil, body: Data? = nil) async throws -> HTTPTransportResponse {
        var headers = [("Accept", "application/json")]
        if let cookie { headers.append(("Cookie", cookie)) }
        if body != nil { headers.append(("Content-Type", "application/json")) }
        return try await URLSessionTransport().send(
            HTTPTransportRequest(method: method, url: url, headers: headers, body: body, timeout: 20))
    }
}
#endif
