#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// One session, a token per resource (`AuthSession.resourceToken(for:using:minimumValidity:rejecting:)`),
/// against the embedded provider: RFC 8707 `resource` on the refresh grant
/// and token exchange, once per resource however many callers (and
/// sessions over one store) ask, kept in the store, ended by sign-out.
@Suite("Tokens per resource")
struct ResourceTokenTests {
    static let billing = try! ResourceIdentifier(URL(string: TokenExchangeTests.billing)!)
    static let mail = try! ResourceIdentifier(URL(string: "https://api.example.com/mail")!)

    /// Counts the token requests that leave the client, by grant type and resource.
    final class CountingTransport: HTTPTransport {
        let inner = URLSessionTransport()
        let requests = LockedValue<[String]>([])

        func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
            if request.method == "POST", request.url.path.hasSuffix("/token"), let body = request.body,
                let form = FormEncoding.decode(String(decoding: body, as: UTF8.self))
            {
                let fields = Dictionary(form, uniquingKeysWith: { first, _ in first })
                requests.withLock { $0.append("\(fields["grant_type"] ?? "-") \(fields["resource"] ?? "-")") }
            }
            return try await inner.send(request)
        }

        func count(_ grantType: String, _ resource: ResourceIdentifier) -> Int {
            requests.withLock { $0.filter { $0 == "\(grantType) \(resource)" }.count }
        }
    }

    /// The confidential demo client with `transport`, signed in as `demo` (with a refresh token).
    static func session(
        _ provider: EmbeddedProvider, store: any CredentialStore = MemoryCredentialStore(),
        transport: CountingTransport = CountingTransport()
    ) async throws -> AuthSession {
        let client = try await OAuthClient(
            issuer: provider.issuer, clientID: Fixture.backend.id, authentication: .clientSecretBasic(secret: Fixture.backend.secret!),
            transport: transport)
        let credentials = try await client.exchange(authorize(client).1)
        return try await AuthSession.start(client: client, credentials: credentials, store: store)
    }

    @Test("the refresh token with resource: aud is that resource, the rotated refresh token becomes the session's, its own token stays")
    func refreshForResource() async throws {
        try await Fixture.with { provider in
            let transport = CountingTransport()
            let store = MemoryCredentialStore()
            let session = try await Self.session(provider, store: store, transport: transport)
            let before = try #require(try await session.currentCredentials)
            let token = try await session.resourceToken(for: Self.billing)
            #expect(token.grant == "refresh_token")
            #expect(token.token.refreshToken == nil)
            #expect(try CompactJWS(token.accessToken).claims["aud"] == .string(Self.billing.description))
            let after = try #require(try await session.currentCredentials)
            #expect(after.accessToken == before.accessToken)
            #expect(after.token.refreshToken != before.token.refreshToken)
            let stored = try #require(try await store.load())
            #expect(stored.credentials.token.refreshToken == after.token.refreshToken)
            #expect(stored.resourceToken(for: Self.billing) == token)
            // Held: no second request.
            #expect(try await session.freshAccessToken(for: Self.billing) == token.accessToken)
            #expect(transport.count("refresh_token", Self.billing) == 1)
            // The rotated refresh token works (the provider revokes the family on a replay).
            let refreshed = try await session.refreshNow()
            #expect(refreshed.accessToken != before.accessToken)
            // The refresh kept the resource's token in the store.
            #expect(try await store.load()?.resourceToken(for: Self.billing) == token)
            #expect("\(token)".contains(token.accessToken) == false)
        }
    }

    @Test("100 callers for two resources: one request per resource, every caller of a resource gets the same token")
    func oneRequestPerResource() async throws {
        try await Fixture.with { provider in
            let transport = CountingTransport()
            let session = try await Self.session(provider, transport: transport)
            let tokens = try await withThrowingTaskGroup(of: (String, String).self) { group in
                for index in 0..<100 {
                    let resource = index.isMultiple(of: 2) ? Self.billing : Self.mail
                    group.addTask { (resource.description, try await session.freshAccessToken(for: resource)) }
                }
                return try await group.reduce(into: [String: Set<String>]()) { $0[$1.0, default: []].insert($1.1) }
            }
            #expect(tokens[Self.billing.description]?.count == 1)
            #expect(tokens[Self.mail.description]?.count == 1)
            #expect(transport.count("refresh_token", Self.billing) == 1)
            #expect(transport.count("refresh_token", Self.mail) == 1)
            #expect(session.heldResourceTokens.map(\.resource) == [Self.billing, Self.mail])
            // Both refreshes rotated the refresh token in turn; the session still refreshes.
            _ = try await session.refreshNow()
        }
    }

    @Test("two sessions over one file store (two processes): the second takes the first's token; asked together, one request")
    func acrossSessions() async throws {
        try await Fixture.with { provider in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-resource-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = FileCredentialStore(url: directory.appendingPathComponent("session.json"))
            let first = CountingTransport()
            let one = try await Self.session(provider, store: store, transport: first)
            let token = try await one.resourceToken(for: Self.billing)
            let second = CountingTransport()
            let other = try #require(
                try await AuthSession.restore(
                    from: store, authentication: .clientSecretBasic(secret: Fixture.backend.secret!), transport: second))
            #expect(try await other.resourceToken(for: Self.billing).accessToken == token.accessToken)
            #expect(second.count("refresh_token", Self.billing) == 0)
            // Asked at once from both sessions: one request between them.
            async let fromOne = one.freshAccessToken(for: Self.mail)
            async let fromOther = other.freshAccessToken(for: Self.mail)
            let (a, b) = try await (fromOne, fromOther)
            #expect(a == b)
            #expect(first.count("refresh_token", Self.mail) + second.count("refresh_token", Self.mail) == 1)
            // The refresh token rotated by one is the one the other uses next.
            _ = try await other.refreshNow()
            _ = try await one.refreshNow()
        }
    }

    /// A store in memory whose saves fail while `failing` (a full disk, a locked Keychain).
    actor FlakyStore: CredentialStore {
        var record: SessionRecord?
        var failing = false
        func load() async throws -> SessionRecord? { record }
        func save(_ record: SessionRecord) async throws {
            if failing { throw AuthFlowError(.storage, "the disk is full") }
            self.record = record
        }
        func delete() async throws { record = nil }
        func fail(_ on: Bool) { failing = on }
    }

    @Test("saves that fail: refreshes for two resources and the session's own spend each rotated refresh token once, and the last is saved")
    func rotatedRefreshTokensSurviveFailedSaves() async throws {
        try await Fixture.with { provider in
            let store = FlakyStore()
            let session = try await Self.session(provider, store: store)
            await store.fail(true)
            let changes = session.changes
            _ = try await session.resourceToken(for: Self.billing)
            _ = try await session.resourceToken(for: Self.mail)
            // The session's own refresh starts from the rotated refresh token held, not the stored (spent) one:
            // the provider revokes the whole grant on a replay.
            let refreshed = try await session.refreshNow()
            var notSaved = 0
            for await change in changes {
                if case .notSaved = change { notSaved += 1 }
                if notSaved == 3 { break }
            }
            await store.fail(false)
            try await session.savePendingCredentials()
            let stored = try #require(try await store.load())
            #expect(stored.credentials.accessToken == refreshed.accessToken)
            #expect(stored.credentials.token.refreshToken == refreshed.token.refreshToken)
            // The stored refresh token is the live one: a session restored from the store refreshes.
            let restored = try #require(
                try await AuthSession.restore(from: store, authentication: .clientSecretBasic(secret: Fixture.backend.secret!)))
            _ = try await restored.refreshNow()
        }
    }

    @Test("token exchange for a resource the policy allows; another is invalid_target, and no token is kept")
    func exchangeForResource() async throws {
        try await Fixture.with(TokenExchangeTests.configuration()) { provider in
            let session = try await Self.session(provider)
            let token = try await session.resourceToken(for: Self.billing, using: .tokenExchange(scopes: ["profile"]))
            #expect(token.grant == "token_exchange")
            #expect(token.scopes == ["profile"])
            #expect(try CompactJWS(token.accessToken).claims["aud"] == .string(Self.billing.description))
            await #expect {
                try await session.resourceToken(for: Self.mail, using: .tokenExchange())
            } throws: { error in
                (error as? AuthFlowError)?.oauth?.error == "invalid_target"
            }
            #expect(session.heldResourceTokens.map(\.resource) == [Self.billing])
            // A held token without a scope asked for is renewed.
            let wider = try await session.resourceToken(for: Self.billing, using: .tokenExchange(scopes: ["profile", "email"]))
            #expect(wider.accessToken != token.accessToken)
            #expect(Set(wider.scopes) == ["profile", "email"])
        }
    }

    @Test("a token goes only to its resource's origin; a refused one is renewed once")
    func sendOnlyToTheResource() async throws {
        try await Fixture.with { provider in
            let transport = CountingTransport()
            let session = try await Self.session(provider, transport: transport)
            let elsewhere = HTTPTransportRequest(method: "GET", url: URL(string: "https://elsewhere.example.com/billing")!)
            await #expect {
                try await session.send(elsewhere, to: Self.billing)
            } throws: { error in
                let error = error as? AuthFlowError
                return error?.category == .configuration
                    && error?.message
                        == "the session's tokens are for https://api.example.com; a request to https://elsewhere.example.com would carry one elsewhere"
            }
            #expect(transport.count("refresh_token", Self.billing) == 0)
            let first = try await session.resourceToken(for: Self.billing)
            let renewed = try await session.resourceToken(for: Self.billing, rejecting: first.accessToken)
            #expect(renewed.accessToken != first.accessToken)
            #expect(transport.count("refresh_token", Self.billing) == 2)
        }
    }

    @Test("sign-out ends every token: revoked at the provider, gone from the store, and no new one")
    func signOutEndsThemAll() async throws {
        try await Fixture.with(TokenExchangeTests.configuration()) { provider in
            let store = MemoryCredentialStore()
            let session = try await Self.session(provider, store: store)
            let byRefresh = try await session.resourceToken(for: Self.mail)
            let byExchange = try await session.resourceToken(for: Self.billing, using: .tokenExchange())
            let wire = Wire(provider: provider)
            #expect(try await wire.introspect(byRefresh.accessToken)["active"] == .bool(true))
            let result = try await session.signOut()
            #expect(result.revocationFailures.isEmpty)
            #expect(try await wire.introspect(byRefresh.accessToken)["active"] == .bool(false))
            #expect(try await wire.introspect(byExchange.accessToken)["active"] == .bool(false))
            #expect(try await store.load() == nil)
            #expect(session.heldResourceTokens.isEmpty)
            await #expect {
                try await session.resourceToken(for: Self.mail)
            } throws: { error in
                (error as? AuthFlowError)?.category == .reauthenticationRequired
            }
        }
    }
}
#endif
