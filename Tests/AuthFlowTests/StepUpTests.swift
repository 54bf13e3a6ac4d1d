import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Step-up authorization: a resource's 403 `insufficient_scope` with
/// `scope=` makes ``AuthSession/send(_:stepUp:)`` authorize again once with
/// the union of scopes and retry once, against a real resource on 127.0.0.1.
@Suite struct StepUpTests {
    /// A resource that accepts `strong` only, and asks for `read write` otherwise.
    static func resource(always403: Bool = false, scope: String = "read write") throws -> LocalHTTPServer {
        try LocalHTTPServer { request in
            if !always403, request.header("Authorization") == "Bearer strong" { return .json(#"{"ok":true}"#) }
            return .init(
                status: 403, headers: [("WWW-Authenticate", #"Bearer error="insufficient_scope", scope="\#(scope)""#)])
        }
    }

    static func credentials(_ token: String, scopes: [String]) throws -> OAuthCredentials {
        let body = #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":3600,"scope":"\#(scopes.joined(separator: " "))"}"#
        return OAuthCredentials(
            issuer: "https://as.example", clientID: "app", token: try TokenResponse(json: json(body), requestedScopes: []), idToken: nil)
    }

    static func session(_ server: LocalHTTPServer, store: any CredentialStore) async throws -> AuthSession {
        var client = try OAuthClient(
            metadata: ProviderMetadata(
                issuer: "https://as.example", authorizationEndpoint: url("https://as.example/authorize"),
                tokenEndpoint: url("https://as.example/token")),
            clientID: "app", transport: URLSessionTransport(), timeout: 5)
        client.resource = try ResourceIdentifier(server.url("/api"))
        return try await AuthSession.start(client: client, credentials: credentials("weak", scopes: ["read"]), store: store)
    }

    @Test func a403WithScopeAuthorizesAgainOnceWithTheUnionAndRetries() async throws {
        let server = try Self.resource()
        defer { server.stop() }
        let store = MemoryCredentialStore()
        let session = try await Self.session(server, store: store)
        let asked = Locked<[[String]]>([])
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { scopes in
            asked.withLock { $0.append(scopes) }
            return try Self.credentials("strong", scopes: scopes)
        }
        #expect(response.status == 200)
        #expect(asked.current == [["read", "write"]])
        #expect(try await store.load()?.credentials.accessToken == "strong")
        #expect(try await session.freshAccessToken() == "strong")
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer weak", "Bearer strong"])
    }

    @Test func aSecond403IsAnInsufficientScopeErrorAfterOneStepUp() async throws {
        let server = try Self.resource(always403: true)
        defer { server.stop() }
        let calls = try await Self.refusedStepUps(server)
        #expect(calls == 1)
        #expect(server.requests.count == 2)
    }

    @Test func scopesGrantedAlreadyAreNotAskedForAgain() async throws {
        let server = try Self.resource(scope: "read")
        defer { server.stop() }
        let calls = try await Self.refusedStepUps(server)
        #expect(calls == 0)
    }

    @Test(arguments: ["read \"write", String(repeating: "s ", count: 65)])
    func aChallengeWithBadOrTooManyScopesIsRefused(_ scope: String) async throws {
        let server = try LocalHTTPServer { _ in
            .init(
                status: 403,
                headers: [
                    (
                        "WWW-Authenticate",
                        "Bearer error=\"insufficient_scope\", scope=\"\(scope.replacingOccurrences(of: "\"", with: "\\\""))\""
                    )
                ])
        }
        defer { server.stop() }
        let session = try await Self.session(server, store: MemoryCredentialStore())
        await expectError(.invalidResponse) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { scopes in
                Issue.record("no step-up for a bad challenge")
                return try Self.credentials("strong", scopes: scopes)
            }
        }
    }

    @Test func credentialsOfAnotherClientAreRefused() async throws {
        let server = try Self.resource()
        defer { server.stop() }
        let store = MemoryCredentialStore()
        let session = try await Self.session(server, store: store)
        await expectError(.configuration) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { _ in
                let body = #"{"access_token":"strong","token_type":"Bearer"}"#
                return OAuthCredentials(
                    issuer: "https://as.example", clientID: "other", token: try TokenResponse(json: json(body), requestedScopes: []),
                    idToken: nil)
            }
        }
        #expect(try await store.load()?.credentials.accessToken == "weak")
    }

    @Test func a403WithoutInsufficientScopeIsReturnedAsItIs() async throws {
        let server = try LocalHTTPServer { _ in .init(status: 403) }
        defer { server.stop() }
        let session = try await Self.session(server, store: MemoryCredentialStore())
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { scopes in
            Issue.record("no step-up without a challenge")
            return try Self.credentials("strong", scopes: scopes)
        }
        #expect(response.status == 403)
    }

    /// Sends one request that ends in an `insufficient_scope` error, and
    /// returns how many times the session asked to step up on the way.
    private static func refusedStepUps(_ server: LocalHTTPServer) async throws -> Int {
        let session = try await session(server, store: MemoryCredentialStore())
        let calls = Locked(0)
        let error = await expectError(.oauthError) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { scopes in
                calls.withLock { $0 += 1 }
                return try credentials("strong", scopes: scopes)
            }
        }
        #expect(error?.oauth?.error == "insufficient_scope")
        return calls.current
    }
}
