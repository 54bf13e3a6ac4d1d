import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `AuthSession` start, restore, sign-out against a refresh in flight,
/// observable changes, refresh timing and the end of a session.
@Suite("AuthSession lifecycle")
struct SessionLifecycleTests {
    /// A provider on loopback: a token endpoint that rotates refresh tokens
    /// (answering after `delay`), a revocation endpoint that records what it
    /// was sent, and an end-session endpoint in the metadata.
    final class LoopbackProvider: Sendable {
        let server: LocalHTTPServer
        let revoked = Locked<[String]>([])
        let refreshes = Locked(0)
        let client: OAuthClient

        init(
            delay: TimeInterval = 0, expiresIn: Int = 3600,
            revocation: @escaping @Sendable (_ token: String, _ hint: String) -> LocalHTTPServer.Response = { _, _ in .init(status: 200) }
        ) throws {
            let revoked = revoked
            let refreshes = refreshes
            server = try LocalHTTPServer { request in
                let form = formDictionary(request.bodyText)
                switch request.target {
                case "/token":
                    let count = refreshes.withLock {
                        $0 += 1
                        return $0
                    }
                    if delay > 0 { Thread.sleep(forTimeInterval: delay) }
                    return .json(
                        #"{"access_token":"AT-\#(count)","token_type":"Bearer","expires_in":\#(expiresIn),"refresh_token":"RT-\#(count)"}"#)
                case "/revoke":
                    revoked.withLock { $0.append(form["token"] ?? "") }
                    return revocation(form["token"] ?? "", form["token_type_hint"] ?? "")
                default:
                    return .init(status: 404)
                }
            }
            var meta = metadata(issuer: nil, token: server.url("/token").absoluteString)
            meta.revocationEndpoint = server.url("/revoke")
            meta.endSessionEndpoint = url("https://idp.example/logout")
            client = try OAuthClient(metadata: meta, clientID: "app", timeout: 10)
        }

        deinit { server.stop() }
    }

    static func temporaryStore() -> FileCredentialStore {
        FileCredentialStore(url: FileCredentialStoreTests.temporaryFile(), lockTimeout: 10, name: "profile test")
    }

    /// Polls `condition` every 5 ms for at most 5 s.
    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<1_000 where !condition() { try await Task.sleep(nanoseconds: 5_000_000) }
    }

    /// Collects the changes of `session` until `count` arrived.
    static func collect(_ stream: AsyncStream<SessionChange>, count: Int) -> Task<[SessionChange], Never> {
        Task {
            var seen: [SessionChange] = []
            for await change in stream {
                seen.append(change)
                if seen.count == count { break }
            }
            return seen
        }
    }

    // MARK: Sign-out wins

    @Test(
        "sign-out during a refresh: waits for it, revokes the rotated refresh token, nothing is written back",
        arguments: ["file", "memory"])
    func signOutDuringRefresh(storeKind: String) async throws {
        let provider = try LoopbackProvider(delay: 0.8)
        let store: any CredentialStore = storeKind == "file" ? Self.temporaryStore() : MemoryCredentialStore()
        var credentials = try SessionTests.credentials(access: "AT-0", refresh: "RT-0")
        credentials.token.idToken = "ID.TOKEN.HINT"
        let session = try await AuthSession.start(client: provider.client, credentials: credentials, store: store)
        let changes = Self.collect(session.changes, count: 2)
        let caller = Task { try await session.freshAccessToken() }
        try await Self.waitUntil { provider.refreshes.current == 1 } // the refresh is now waiting for the server
        #expect(provider.refreshes.current == 1)
        let result = try await session.signOut()
        _ = try? await caller.value
        try await Task.sleep(nanoseconds: 200_000_000)

        #expect(try await store.load() == nil, "nothing wrote the credentials back")
        #expect(provider.revoked.current == ["RT-1", "AT-1", "AT-0"], "the rotated refresh token and both access tokens were revoked")
        #expect(result.revocationFailures.isEmpty)
        #expect(result.endSessionURL?.absoluteString.contains("id_token_hint=ID.TOKEN.HINT") == true)
        #expect(!session.hasAccessToken(validFor: 0))
        #expect(!session.canRefresh)
        await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        #expect(provider.refreshes.current == 1, "no refresh after sign-out")
        #expect(await changes.value == [.refreshed, .signedOut(.user)])
    }

    @Test("sign-out from another session on the same file (another process) waits for its refresh under the lock")
    func signOutElsewhereDuringRefresh() async throws {
        let provider = try LoopbackProvider(delay: 0.8)
        let store = Self.temporaryStore()
        let first = try await AuthSession.start(
            client: provider.client, credentials: try SessionTests.credentials(access: "AT-0", refresh: "RT-0"),
            store: store)
        let other = try #require(try await AuthSession.restore(from: FileCredentialStore(url: store.url), transport: URLSessionTransport()))
        let caller = Task { try await first.freshAccessToken() }
        try await Self.waitUntil { provider.refreshes.current == 1 }
        _ = try await other.signOut()
        _ = try? await caller.value
        #expect(try await store.load() == nil)
        #expect(provider.revoked.current.first == "RT-1", "the refresh token rotated by the other session was revoked")
    }

    @Test("revocation failures are reported beside the end-session URL; the credentials are deleted anyway")
    func revocationFailure() async throws {
        let provider = try LoopbackProvider(revocation: { _, _ in .json(#"{"error":"invalid_client"}"#, status: 401) })
        let store = MemoryCredentialStore()
        let session = try await AuthSession.start(
            client: provider.client, credentials: try SessionTests.credentials(expiresIn: 3600), store: store)
        let result = try await session.signOut()
        #expect(result.endSessionURL?.host == "idp.example")
        #expect(result.revocationFailures.map(\.oauth?.error) == ["invalid_client", "invalid_client"])
        #expect(try await store.load() == nil)
    }

    @Test("unsupported_token_type for the access token (AWS Cognito) counts as done")
    func unsupportedTokenType() async throws {
        let provider = try LoopbackProvider(revocation: { _, hint in
            hint == "access_token" ? .json(#"{"error":"unsupported_token_type"}"#, status: 400) : .init(status: 200)
        })
        let session = try await AuthSession.start(
            client: provider.client, credentials: try SessionTests.credentials(expiresIn: 3600),
            store: MemoryCredentialStore())
        let result = try await session.signOut()
        #expect(result.revocationFailures.isEmpty)
        #expect(provider.revoked.current == ["RT-old", "AT-old"])
    }

    // MARK: Start and restore

    @Test("start writes the record (credentials, metadata, client authentication method) before it returns")
    func startSaves() async throws {
        let client = try OAuthClient(
            metadata: metadata(), clientID: "app", authentication: .clientSecretPost(secret: "s3cret"),
            transport: ScriptedTransport.unused())
        let store = MemoryCredentialStore()
        let credentials = try SessionTests.credentials(expiresIn: 3600)
        let session = try await AuthSession.start(client: client, credentials: credentials, store: store)
        let record = try #require(try await store.load())
        #expect(record.credentials == credentials)
        #expect(record.metadata == client.metadata)
        #expect(record.clientAuthenticationMethod == .clientSecretPost)
        #expect(!String(decoding: try CredentialCoding.encode(record), as: UTF8.self).contains("s3cret"), "no secret in the record")
        #expect(session.hasAccessToken(validFor: 3000))
        #expect(!session.hasAccessToken(validFor: 4000))
        #expect(session.canRefresh)
    }

    @Test("a DPoP-bound session keeps its key in the record: start stores it, restore binds the client to it again")
    func dpopKeyRoundTrip() async throws {
        var client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let key = DPoPKey()
        client.dpop = DPoPBinding(key: key)
        let store = Self.temporaryStore()
        _ = try await AuthSession.start(client: client, credentials: try SessionTests.credentials(expiresIn: 3600), store: store)
        #expect(try await store.load()?.dpopKey == key)
        let restored = try #require(
            try await AuthSession.restore(from: FileCredentialStore(url: store.url), transport: ScriptedTransport.unused()))
        #expect(restored.client.dpop?.key as? DPoPKey == key)

        let bearer = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        let plain = Self.temporaryStore()
        _ = try await AuthSession.start(client: bearer, credentials: try SessionTests.credentials(expiresIn: 3600), store: plain)
        #expect(try await plain.load()?.dpopKey == nil)
        #expect(try #require(try await AuthSession.restore(from: plain)).client.dpop == nil)
    }

    @Test("restore works with the network down, and refreshes once it is back")
    func restoreOffline() async throws {
        let online = Locked(false)
        let transport = ScriptedTransport { request in
            guard online.current else { throw AuthFlowError(.network, "offline") }
            return SessionTests.refreshed()
        }
        let store = Self.temporaryStore()
        var meta = metadata(issuer: nil)
        meta.endSessionEndpoint = url("https://idp.example/logout")
        let client = try OAuthClient(metadata: meta, clientID: "app", transport: ScriptedTransport.unused())
        _ = try await AuthSession.start(client: client, credentials: try SessionTests.credentials(), store: store)

        let session = try #require(try await AuthSession.restore(from: FileCredentialStore(url: store.url), transport: transport))
        #expect(transport.requests.isEmpty, "restoring needs no network")
        #expect(session.client.metadata == meta)
        #expect(session.client.clientID == "app")
        #expect(!session.hasAccessToken(validFor: 0))
        await expectError(.network) { try await session.freshAccessToken() }
        online.withLock { $0 = true }
        #expect(try await session.freshAccessToken() == "AT-new")
        #expect(try await store.load()?.credentials.token.refreshToken == "RT-new")
        #expect(try await AuthSession.restore(from: Self.temporaryStore()) == nil, "nothing stored: nil")
    }

    @Test("restore refuses an authentication other than the stored method")
    func restoreWrongAuthentication() async throws {
        let client = try OAuthClient(
            metadata: metadata(), clientID: "app", authentication: .clientSecretBasic(secret: "s"),
            transport: ScriptedTransport.unused())
        let store = MemoryCredentialStore()
        _ = try await AuthSession.start(client: client, credentials: try SessionTests.credentials(), store: store)
        let error = await expectError(.configuration) { try await AuthSession.restore(from: store) }
        #expect(error?.message.contains("client_secret_basic") == true)
        #expect(try await AuthSession.restore(from: store, authentication: .clientSecretBasic(secret: "s")) != nil)
    }

    @Test("the first stored format (credentials only) still loads")
    func legacyFormat() async throws {
        let v1 =
            #"{"version":1,"credentials":{"issuer":"https://idp.example","clientID":"app","token":{"accessToken":"AT","tokenType":"Bearer","scopes":[],"additional":{}}}}"#
        let record = try CredentialCoding.decode(Data(v1.utf8), source: "test")
        #expect(record.credentials.accessToken == "AT")
        #expect(record.credentials.issuer == "https://idp.example")
        #expect(!record.hasMetadata)
        let noIssuer = try CredentialCoding.decode(
            Data(v1.replacingOccurrences(of: #""issuer":"https://idp.example","#, with: "").utf8), source: "test")
        await expectError(.reauthenticationRequired) {
            try await AuthSession.restore(from: MemoryCredentialStore(noIssuer), transport: ScriptedTransport.unused())
        }
    }

    @Test(
        "resource tokens: a version-2 record without them reads as holding none; with them, they round-trip and stay out of the description"
    )
    func resourceTokensInTheRecord() async throws {
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: ScriptedTransport.unused())
        var record = SessionRecord(credentials: try SessionTests.credentials(expiresIn: 3600), client: client)
        let plain = String(decoding: try CredentialCoding.encode(record), as: UTF8.self)
        #expect(!plain.contains("resource_tokens"), "no member while there are none: older readers see the record they know")
        #expect(try CredentialCoding.decode(Data(plain.utf8), source: "test").resourceTokens.isEmpty)
        let billing = try ResourceIdentifier(URL(string: "https://api.example.com/billing")!)
        var response = try SessionTests.credentials(expiresIn: 600).token
        response.accessToken = "billing-token"
        response.refreshToken = "never-kept"
        record.resourceTokens = [ResourceToken(resource: billing, token: response, grant: "refresh_token")]
        #expect(record.resourceTokens[0].token.refreshToken == nil)
        let encoded = try CredentialCoding.encode(record)
        let decoded = try CredentialCoding.decode(encoded, source: "test")
        #expect(try CredentialCoding.encode(decoded) == encoded)
        #expect(decoded.resourceTokens.map(\.resource) == [billing])
        #expect(decoded.resourceToken(for: billing)?.accessToken == "billing-token")
        #expect(decoded.resourceToken(for: billing)?.grant == "refresh_token")
        #expect(try VersionedFile.version(of: encoded, path: "") == 2)
        #expect(!"\(record)".contains("billing-token"))
        #expect("\(record)".contains("resource_tokens: https://api.example.com/billing"))
        // A store written by a version that knew no resource tokens: the rest of the record reads the same.
        let store = Self.temporaryStore()
        _ = try await AuthSession.start(client: client, credentials: record.credentials, store: store)
        #expect(try await store.load()?.resourceTokens == [])
    }

    @Test("a first-format record with an issuer is completed by discovery once and saved in the current format")
    func legacyRestoredByDiscovery() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            let base = "http://127.0.0.1:\(port.current)"
            guard request.target == "/.well-known/openid-configuration" else { return .init(status: 404) }
            return .json(
                #"{"issuer":"\#(base)","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token","revocation_endpoint":"\#(base)/revoke"}"#
            )
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let issuer = "http://127.0.0.1:\(server.port)"
        let store = Self.temporaryStore()
        let v1 =
            #"{"version":1,"credentials":{"issuer":"\#(issuer)","clientID":"app","token":{"accessToken":"AT","tokenType":"Bearer","scopes":[],"additional":{}}}}"#
        try FileManager.default.createDirectory(
            at: store.url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(v1.utf8).write(to: store.url)
        #expect(chmod(store.url.path, 0o600) == 0)
        let session = try #require(try await AuthSession.restore(from: store, transport: URLSessionTransport()))
        #expect(session.client.metadata.tokenEndpoint.absoluteString == issuer + "/token")
        #expect(try await session.freshAccessToken() == "AT")
        let saved = try #require(try await store.load())
        #expect(saved.hasMetadata && saved.metadata.revocationEndpoint?.absoluteString == issuer + "/revoke")
        #expect(try VersionedFile.version(of: try Data(contentsOf: store.url), path: "") == CredentialCoding.version)
        #expect(server.requests.count == 1)
    }

    // MARK: Refresh timing

    @Test("the leeway is at most half the token's lifetime: a 5-second token is used until 2.5 s before expiry")
    func leewayFitsTheToken() async throws {
        let provider = try SessionTests.Provider(token: [SessionTests.refreshed()])
        let start = Date()
        var credentials = try SessionTests.credentials()
        credentials.token.expiresIn = 5
        credentials.token.expiresAt = start.addingTimeInterval(5)
        let early = AuthSession(client: provider.client, credentials: credentials, leeway: 60, now: { start.addingTimeInterval(1) })
        #expect(try await early.freshAccessToken() == "AT-old", "4 s left of 5: used")
        #expect(provider.requests(to: "/token").isEmpty)
        let late = AuthSession(client: provider.client, credentials: credentials, leeway: 60, now: { start.addingTimeInterval(3) })
        #expect(try await late.freshAccessToken() == "AT-new", "2 s left of 5: refreshed")
        #expect(TokenValidity.effectiveLeeway(60, lifetime: 3600) == 60)
        #expect(TokenValidity.effectiveLeeway(60, lifetime: nil) == 60)
    }

    @Test("a session that waited for another's refresh uses its result instead of judging it again")
    func waiterUsesTheOtherRefresh() async throws {
        let provider = try LoopbackProvider(delay: 0.3, expiresIn: 30)
        let store = Self.temporaryStore()
        let credentials = try SessionTests.credentials(access: "AT-0", refresh: "RT-0")
        _ = try await AuthSession.start(client: provider.client, credentials: credentials, store: store)
        // Two processes: each its own session over the same file.
        let sessions = try await [0, 1].asyncMap { _ in
            try #require(try await AuthSession.restore(from: FileCredentialStore(url: store.url), transport: URLSessionTransport()))
        }
        // Both ask for a token valid 45 s; the one refresh yields a 30-second token, which the waiter takes as it is.
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for session in sessions { group.addTask { try await session.freshAccessToken(minimumValidity: 45) } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(tokens == ["AT-1", "AT-1"])
        #expect(provider.refreshes.current == 1)
    }

    @Test("a token without expires_in is used until refused (401 invalid_token) or refreshed on demand")
    func noExpiry() async throws {
        let challenge = HTTPTransportResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)])
        let provider = try SessionTests.Provider(
            token: [SessionTests.refreshed(), SessionTests.refreshed("AT-forced", refresh: "RT-forced")],
            api: [challenge])
        var credentials = try SessionTests.credentials()
        credentials.token.expiresAt = nil
        credentials.token.expiresIn = nil
        let session = AuthSession(client: provider.client, credentials: credentials)
        #expect(try await session.freshAccessToken() == "AT-old")
        #expect(session.hasAccessToken(validFor: 86_400))
        #expect(provider.requests(to: "/token").isEmpty)
        _ = try await session.send(HTTPTransportRequest(method: "GET", url: url(SessionTests.api)))
        #expect(provider.requests(to: "/token").count == 1)
        #expect(try await session.refreshNow().accessToken == "AT-forced")
        #expect(provider.requests(to: "/token").count == 2)
    }

    // MARK: The end of a session

    @Test("no refresh token: reauthentication_required saying none was issued and how to get one; nothing sent; signed out")
    func noRefreshToken() async throws {
        let provider = try SessionTests.Provider(token: [])
        let store = MemoryCredentialStore()
        let session = try await AuthSession.start(
            client: provider.client, credentials: try SessionTests.credentials(refresh: nil), store: store)
        #expect(!session.canRefresh)
        let changes = Self.collect(session.changes, count: 1)
        let error = await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        #expect(error?.message.contains("issued no refresh token") == true)
        #expect(error?.recovery?.contains("offline_access") == true)
        #expect(error?.recovery?.contains("access_type=offline and prompt=consent (AuthorizationOptions.additionalParameters)") == true)
        #expect(error?.remedy == .requestOfflineAccess)
        #expect(provider.transport.requests.isEmpty, "nothing was sent")
        #expect(try await store.load() == nil)
        #expect(await changes.value == [.signedOut(.noRefreshToken)])
    }

    @Test("invalid_grant: signed out with the reason, and says the provider refused the refresh token")
    func refreshTokenRefused() async throws {
        let provider = try SessionTests.Provider(token: [.json(#"{"error":"invalid_grant"}"#, status: 400)])
        let session = try await AuthSession.start(
            client: provider.client, credentials: try SessionTests.credentials(), store: MemoryCredentialStore())
        let changes = Self.collect(session.changes, count: 1)
        let error = await expectError(.reauthenticationRequired) { try await session.freshAccessToken() }
        #expect(error?.oauth?.error == "invalid_grant")
        #expect(error?.message.contains("refused the refresh token") == true)
        #expect(await changes.value == [.signedOut(.refreshTokenRefused)])
    }

    @Test("each access to changes is a new stream; an ended stream is dropped")
    func changeStreams() async throws {
        let provider = try SessionTests.Provider(token: [SessionTests.refreshed(), SessionTests.refreshed("AT-2")])
        let session = try await AuthSession.start(
            client: provider.client, credentials: try SessionTests.credentials(), store: MemoryCredentialStore())
        let a = Self.collect(session.changes, count: 1)
        let b = Self.collect(session.changes, count: 2)
        _ = try await session.freshAccessToken()
        #expect(await a.value == [.refreshed])
        _ = try await session.refreshNow()
        #expect(await b.value == [.refreshed, .refreshed])
    }
}

extension Array {
    /// `map` with an async transform, in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
