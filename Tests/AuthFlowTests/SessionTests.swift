import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `AuthSession`: single-flight refresh, rotation, failure policy, authorized requests, sign-out.
@Suite("AuthSession")
struct SessionTests {
    static let api = "https://api.example/me"

    /// A provider with token, revocation and end-session endpoints, scripted.
    final class Provider: Sendable {
        let tokenReplies: Locked<[HTTPTransportResponse]>
        let transport: ScriptedTransport
        let client: OAuthClient

        /// Delays token responses without blocking a thread.
        struct Delayed: HTTPTransport {
            let inner: ScriptedTransport
            let nanoseconds: UInt64
            func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
                if nanoseconds > 0, request.url.path == "/token" { try await Task.sleep(nanoseconds: nanoseconds) }
                return try await inner.send(request)
            }
        }
        let apiReplies: Locked<[HTTPTransportResponse]>

        init(token replies: [HTTPTransportResponse], api: [HTTPTransportResponse] = [], delay: UInt64 = 0) throws {
            let tokenReplies = Locked(replies)
            let apiReplies = Locked(api)
            self.tokenReplies = tokenReplies
            self.apiReplies = apiReplies
            transport = ScriptedTransport { request in
                switch request.url.absoluteString {
                case "https://idp.example/token":
                    return tokenReplies.withLock { $0.isEmpty ? HTTPTransportResponse(status: 599) : $0.removeFirst() }
                case "https://idp.example/revoke":
                    return HTTPTransportResponse(status: 200)
                case SessionTests.api:
                    return apiReplies.withLock { $0.isEmpty ? HTTPTransportResponse(status: 200) : $0.removeFirst() }
                default:
                    return HTTPTransportResponse(status: 404)
                }
            }
            var meta = metadata(issuer: nil)
            meta.revocationEndpoint = url("https://idp.example/revoke")
            meta.endSessionEndpoint = url("https://idp.example/logout")
            client = try OAuthClient(metadata: meta, clientID: "app", transport: Delayed(inner: transport, nanoseconds: delay * 1_000))
        }

        func requests(to path: String) -> [HTTPTransportRequest] { transport.requests.filter { $0.url.path == path } }
    }

    static func credentials(access: String = "AT-old", refresh: String? = "RT-old", expiresIn: TimeInterval = -10) throws
        -> OAuthCredentials
    {
        var token = try TokenResponse(json: json(#"{"access_token":"\#(access)","token_type":"Bearer"}"#), requestedScopes: ["api"])
        token.refreshToken = refresh
        token.expiresAt = Date(timeIntervalSinceNow: expiresIn)
        return OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil)
    }

    static func refreshed(_ access: String = "AT-new", refresh: String? = "RT-new", scope: String? = nil) -> HTTPTransportResponse {
        var body = #"{"access_token":"\#(access)","token_type":"bearer","expires_in":3600"#
        if let refresh { body += #","refresh_token":"\#(refresh)""# }
        if let scope { body += #","scope":"\#(scope)""# }
        return .json(body + "}")
    }

    @Test("200 concurrent callers on an expired token cause one refresh and all get its result")
    func singleFlight() async throws {
        let provider = try Provider(token: [Self.refreshed()], delay: 50_000)
        let store = MemoryCredentialStore()
        let session = AuthSession(client: provider.client, store: store, credentials: try Self.credentials())
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { try await session.freshAccessToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["AT-new"])
        #expect(provider.requests(to: "/token").count == 1)
        let body = formDictionary(String(decoding: provider.requests(to: "/token")[0].body ?? Data(), as: UTF8.self))
        #expect(body["grant_type"] == "refresh_token")
        #expect(body["refresh_token"] == "RT-old")
        #expect(try await store.load()?.credentials.token.refreshToken == "RT-new", "the rotated refresh token is stored")
    }

    @Test("the rotated refresh token is stored before the caller sees the new access token")
    func storedBeforeReturn() async throws {
        let provider = try Provider(token: [Self.refreshed()])
        let store = MemoryCredentialStore()
        let session = AuthSession(client: provider.client, store: store, credentials: try Self.credentials())
        let token = try await session.freshAccessToken()
        let stored = try #require(try await store.load()?.credentials)
        #expect(stored.accessToken == token)
        #expect(stored.token.refreshToken == "RT-new")
    }

    @Test("a response without a refresh token keeps the old one; scopes are updated")
    func keepsOldRefreshToken() async throws {
        let provider = try Provider(token: [Self.refreshed(refresh: nil, scope: "api read")])
        let session = AuthSession(client: provider.client, credentials: try Self.credentials())
        let credentials = try await session.freshCredentials()
        #expect(credentials.token.refreshToken == "RT-old")
        #expect(credentials.scopes == ["api", "read"])
    }

    @Test("a valid token is returned without a request; one inside the leeway is refreshed")
    func leeway() async throws {
        let provider = try Provider(token: [Self.refreshed()])
        let fresh = AuthSession(client: provider.client, credentials: try Self.credentials(expiresIn: 3600))
        #expect(try await fresh.freshAccessToken() == "AT-old")
        #expect(provider.requests(to: "/token").isEmpty)
        let soon = AuthSession(client: provider.client, credentials: try Self.credentials(expiresIn: 30), leeway: 60)
        #expect(try await soon.freshAccessToken() == "AT-new")
        #expect(provider.requests(to: "/token").count == 1)
    }

    @Test("invalid_grant ends the session: credentials deleted, reauthentication_required")
    func invalidGrant() async throws {
        let provider = try Provider(token: [.json(#"{"error":"invalid_grant"}"#, status: 400)])
        let store = MemoryCredentialStore()
        let session = AuthSession(client: provider.client, store: store, credentials: try Self.credentials())
        await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        #expect(try await store.load() == nil)
        await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        #expect(provider.requests(to: "/token").count == 1, "no further request after the session ended")
    }

    @Test("a 5xx is retried once with the same refresh token, then succeeds")
    func serverErrorRetried() async throws {
        let provider = try Provider(token: [HTTPTransportResponse(status: 503), Self.refreshed()])
        let session = AuthSession(client: provider.client, credentials: try Self.credentials())
        #expect(try await session.freshAccessToken() == "AT-new")
        let bodies = provider.requests(to: "/token").map { formDictionary(String(decoding: $0.body ?? Data(), as: UTF8.self)) }
        #expect(bodies.map { $0["refresh_token"] } == ["RT-old", "RT-old"])
    }

    @Test("two 5xx keep the credentials and report network")
    func serverErrorTwice() async throws {
        let provider = try Provider(token: [
            HTTPTransportResponse(status: 502), .json(#"{"error":"temporarily_unavailable"}"#, status: 503),
        ])
        let store = MemoryCredentialStore()
        let session = AuthSession(client: provider.client, store: store, credentials: try Self.credentials())
        await expectError(.network) { try await session.freshAccessToken() }
        #expect(provider.requests(to: "/token").count == 2)
        #expect(try await store.load()?.credentials.token.refreshToken == "RT-old", "credentials kept")
    }

    @Test("network and timeout failures are retried once, then reported as such", arguments: [AuthFlowError.Category.network, .timeout])
    func transportFailures(category: AuthFlowError.Category) async throws {
        let attempts = Locked(0)
        let transport = ScriptedTransport { _ in
            attempts.withLock { $0 += 1 }
            throw AuthFlowError(category, "scripted")
        }
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: transport)
        let store = MemoryCredentialStore()
        let session = AuthSession(client: client, store: store, credentials: try Self.credentials())
        await expectError(category) { try await session.freshAccessToken() }
        #expect(attempts.current == 2)
        #expect(try await store.load() != nil)
    }

    @Test("other OAuth errors are reported without retry and keep the credentials")
    func otherOAuthError() async throws {
        let provider = try Provider(token: [.json(#"{"error":"invalid_client"}"#, status: 401)])
        let store = MemoryCredentialStore()
        let session = AuthSession(client: provider.client, store: store, credentials: try Self.credentials())
        let error = await expectError(.oauthError) { try await session.freshAccessToken() }
        #expect(error?.oauth?.error == "invalid_client")
        #expect(provider.requests(to: "/token").count == 1)
        #expect(try await store.load() != nil)
    }

    @Test("no refresh token: reauthentication_required without a request")
    func noRefreshToken() async throws {
        let provider = try Provider(token: [])
        let session = AuthSession(client: provider.client, credentials: try Self.credentials(refresh: nil))
        await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        #expect(provider.requests(to: "/token").isEmpty)
    }

    @Test("a store refreshed elsewhere is reused, not refreshed again")
    func refreshedElsewhere() async throws {
        let provider = try Provider(token: [])
        let store = MemoryCredentialStore()
        let session = AuthSession(client: provider.client, store: store, credentials: try Self.credentials())
        _ = try await session.currentCredentials // writes the initial credentials
        try await store.save(
            SessionRecord(
                credentials: try Self.credentials(access: "AT-other", refresh: "RT-other", expiresIn: 3600), client: provider.client))
        #expect(try await session.freshAccessToken() == "AT-other")
        #expect(provider.requests(to: "/token").isEmpty)
    }

    @Test("send: bearer header only; a 401 invalid_token refreshes once and retries once")
    func authorizedRequest() async throws {
        let challenge = HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer realm="api", error="invalid_token""#)])
        let provider = try Provider(token: [Self.refreshed()], api: [challenge, challenge])
        let session = AuthSession(client: provider.client, credentials: try Self.credentials(expiresIn: 3600))
        let response = try await session.send(
            HTTPTransportRequest(method: "GET", url: url(Self.api), headers: [("Authorization", "Basic forged")]))
        #expect(response.status == 401, "the second refusal is returned, not retried again")
        let calls = provider.requests(to: "/me")
        #expect(calls.count == 2)
        #expect(calls.map { $0.headers.filter { $0.name == "Authorization" }.map(\.value) } == [["Bearer AT-old"], ["Bearer AT-new"]])
        #expect(calls.allSatisfy { $0.url.query == nil })
        #expect(provider.requests(to: "/token").count == 1)
    }

    @Test("send: a session for one resource sends its token only to that resource's origin")
    func tokensStayWithTheirResource() async throws {
        let provider = try Provider(token: [])
        var client = provider.client
        client.resource = try ResourceIdentifier(url("https://api.example/mcp"))
        let session = AuthSession(client: client, credentials: try Self.credentials(expiresIn: 3600))
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: url(Self.api)))
        #expect(response.status == 200)
        for elsewhere in ["https://evil.example/me", "http://api.example/me", "https://api.example:8443/me", "https://api.example.evil/me"]
        {
            let error = await expectError(.configuration) {
                try await session.send(HTTPTransportRequest(method: "GET", url: url(elsewhere)))
            }
            #expect(error?.message.contains("AT-old") == false)
        }
        #expect(provider.transport.requests.count == 1)
    }

    @Test("send: the token goes only over https or to a loopback host, for any session (RFC 6750 §5.3)")
    func tokensOnlyOverTLSOrLoopback() async throws {
        let provider = try Provider(token: [])
        let session = AuthSession(client: provider.client, credentials: try Self.credentials(expiresIn: 3600))
        for plain in ["http://api.example/me", "http://10.0.0.1/me", "http://127.attacker.example/me", "ftp://api.example/me"] {
            let error = await expectError(.configuration) { try await session.send(HTTPTransportRequest(method: "GET", url: url(plain))) }
            #expect(error?.message == "a request that carries the access token must use https (http is allowed only for loopback hosts)")
        }
        #expect(provider.transport.requests.isEmpty)
        for allowed in [Self.api, "http://127.0.0.1:8080/me", "http://[::1]/me"] {
            _ = try await session.send(HTTPTransportRequest(method: "GET", url: url(allowed)))
        }
        #expect(
            provider.transport.requests.map { $0.headers.first { $0.name == "Authorization" }?.value }
                == Array(repeating: "Bearer AT-old", count: 3))
    }

    @Test("send: a 401 without invalid_token is returned as is")
    func otherUnauthorized() async throws {
        let provider = try Provider(
            token: [], api: [HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer error="insufficient_scope""#)])])
        let session = AuthSession(client: provider.client, credentials: try Self.credentials(expiresIn: 3600))
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: url(Self.api)))
        #expect(response.status == 401)
        #expect(provider.requests(to: "/token").isEmpty)
    }

    @Test("signOut revokes the refresh token, then the access token, deletes, and returns the end-session URL")
    func signOut() async throws {
        let provider = try Provider(token: [])
        let store = MemoryCredentialStore()
        var credentials = try Self.credentials(expiresIn: 3600)
        credentials.token.idToken = "ID.TOKEN.HINT"
        let session = AuthSession(client: provider.client, store: store, credentials: credentials)
        let result = try await session.signOut(postLogoutRedirectURI: url("com.example.app:/signed-out"))
        #expect(result.revocationFailures.isEmpty)
        let endSession = try #require(result.endSessionURL)
        let revocations = provider.requests(to: "/revoke").map { formDictionary(String(decoding: $0.body ?? Data(), as: UTF8.self)) }
        #expect(revocations.map { $0["token"] } == ["RT-old", "AT-old"])
        #expect(revocations.map { $0["token_type_hint"] } == ["refresh_token", "access_token"])
        #expect(revocations.allSatisfy { $0["client_id"] == "app" })
        #expect(try await store.load() == nil)
        let query = formDictionary(URLComponents(url: endSession, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["id_token_hint"] == "ID.TOKEN.HINT")
        #expect(query["post_logout_redirect_uri"] == "com.example.app:/signed-out")
        #expect(query["state"]?.count == 43)
        await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
    }

    @Test("revocation without an endpoint is a configuration error")
    func noRevocationEndpoint() async throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        await expectError(.configuration) { try await client.revoke("AT", hint: .accessToken) }
    }

    @Test("a refreshed ID token must keep iss, sub, aud, azp and auth_time (OIDC Core 12.2)")
    func idTokenContinuity() throws {
        func claims(_ changes: [String: JSONMemberValue?] = [:]) throws -> IDTokenClaims {
            var base = TestIDP.claims(["auth_time": .number(1_699_999_000), "azp": .string("app")])
            for (name, value) in changes { base[name] = value }
            return try IDTokenClaims(claims: base)
        }
        let original = try claims()
        try OAuthClient.checkContinuity(old: original, new: try claims(["iat": .number(1_700_000_100), "nonce": nil]))
        expectError(.idTokenInvalid, reason: .subject) {
            try OAuthClient.checkContinuity(old: original, new: try claims(["sub": .string("other")]))
        }
        expectError(.idTokenInvalid, reason: .issuer) {
            try OAuthClient.checkContinuity(old: original, new: try claims(["iss": .string("https://other.example")]))
        }
        expectError(.idTokenInvalid, reason: .audience) {
            try OAuthClient.checkContinuity(old: original, new: try claims(["aud": .string("other")]))
        }
        expectError(.idTokenInvalid, reason: .authorizedParty) {
            try OAuthClient.checkContinuity(old: original, new: try claims(["azp": nil]))
        }
        expectError(.idTokenInvalid, reason: .authTime) {
            try OAuthClient.checkContinuity(old: original, new: try claims(["auth_time": .number(1_699_999_999)]))
        }
    }
}

/// The first callers of a session created with credentials: none may refresh
/// before those credentials are in the store.
@Suite("AuthSession first use")
struct SessionFirstUseTests {
    /// A store whose save takes a while, so concurrent first callers overlap it.
    actor SlowStore: CredentialStore {
        private var record: SessionRecord?
        func load() async throws -> SessionRecord? { record }
        func save(_ record: SessionRecord) async throws {
            try await Task.sleep(nanoseconds: 50_000_000)
            self.record = record
        }
        func delete() async throws { record = nil }
    }

    @Test("concurrent first callers on expired credentials all get the one refresh, none a spurious sign-out")
    func concurrentFirstUse() async throws {
        let provider = try SessionTests.Provider(token: [SessionTests.refreshed()])
        let session = AuthSession(client: provider.client, store: SlowStore(), credentials: try SessionTests.credentials())
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await session.freshAccessToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(tokens == ["AT-new"])
        #expect(provider.requests(to: "/token").count == 1)
    }
}
