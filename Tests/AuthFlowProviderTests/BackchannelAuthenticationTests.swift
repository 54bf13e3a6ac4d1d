#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Testing

/// OpenID CIBA Core 1.0 end to end: the engine's backchannel sign-in
/// against the embedded provider, whose approval page stands in for the
/// user's own device, in poll and ping mode, and the provider's refusals.
@Suite("Backchannel authentication (CIBA)")
struct BackchannelAuthenticationTests {
    private static let secretClient = ProviderClient(
        id: "ciba-client", secret: "ciba-secret", authentication: .clientSecretBasic, grantTypes: [GrantType.ciba, GrantType.refreshToken])

    private static func configuration(
        signIn: SignInMode = .automatic(subject: "demo"), lifetimes: TokenLifetimes? = nil, notification: URL? = nil
    ) -> ProviderConfiguration {
        var configuration = Fixture.configuration(signIn: signIn, lifetimes: lifetimes)
        var client = secretClient
        client.backchannelNotificationEndpoint = notification
        configuration.clients.append(client)
        configuration.users.append(ProviderUser(subject: "bob", password: "bob-pw", claims: ["email": .string("bob@example.com")]))
        return configuration
    }

    private static func client(_ provider: EmbeddedProvider) async throws -> OAuthClient {
        try await OAuthClient(issuer: provider.issuer, clientID: secretClient.id, authentication: .clientSecretBasic(secret: "ciba-secret"))
    }

    /// The approval page's handle of the one pending request, from its list.
    private static func approvalHandle(_ wire: Wire) async throws -> String {
        for _ in 0..<50 {
            let page = String(decoding: try await wire.get("/ciba").body, as: UTF8.self)
            if let range = page.range(of: #"request=[A-Za-z0-9_-]+"#, options: .regularExpression) {
                return String(page[range].dropFirst("request=".count))
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        throw AuthFlowError(.timeout, "no request on the approval page")
    }

    @Test("poll mode: the user approves on the other device; the ID token names them; the binding message is on both screens")
    func approvedByPolling() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let wire = Wire(provider: provider)
            let client = try await Self.client(provider)
            var request = BackchannelAuthenticationRequest(user: .loginHint("demo@example.com"), scopes: ["profile"])
            request.bindingMessage = "Desk 4 · 7261"
            let pending = try await client.startBackchannelAuthentication(request)
            #expect(pending.response.expiresIn == 600)
            let handle = try await Self.approvalHandle(wire)
            #expect(!handle.isEmpty && handle != pending.response.authenticationRequestID)
            let page = String(decoding: try await wire.get("/ciba", [("request", handle)]).body, as: UTF8.self)
            #expect(page.contains("Desk 4 · 7261") && !page.contains(pending.response.authenticationRequestID))
            let approved = try await wire.post("/ciba", [("request", handle), ("decision", "allow")])
            #expect(approved.status == 200)
            let credentials = try await pending.credentials()
            #expect(credentials.subject == "demo" && credentials.token.scopes.contains("openid"))
            #expect(credentials.token.refreshToken != nil)
            // Redeemed once.
            let again = try await wire.post(
                "/token", [("grant_type", GrantType.ciba), ("auth_req_id", pending.response.authenticationRequestID)],
                basic: ("ciba-client", "ciba-secret"))
            #expect(Wire.json(again)["error"] == .string("invalid_grant"))
        }
    }

    @Test("poll mode: a denial is access_denied; an expired request is a timeout")
    func deniedAndExpired() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let pending = try await Self.client(provider).startBackchannelAuthentication(
                BackchannelAuthenticationRequest(user: .loginHint("demo")))
            let wire = Wire(provider: provider)
            _ = try await wire.post("/ciba", [("request", try await Self.approvalHandle(wire)), ("decision", "deny")])
            let denied = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
            #expect(denied?.category == .oauthError && denied?.oauth?.error == "access_denied")
        }
        try await Fixture.with(Self.configuration(lifetimes: TokenLifetimes(deviceCode: 1, devicePollingInterval: 0))) { provider in
            let pending = try await Self.client(provider).startBackchannelAuthentication(
                BackchannelAuthenticationRequest(user: .loginHint("demo")))
            await #expect(throws: AuthFlowError(.timeout, "the backchannel authentication request expired before the user approved it")) {
                try await pending.credentials()
            }
        }
    }

    @Test("the CIBA grant: authorization_pending, slow_down when polled too fast, expired_token after the lifetime")
    func pollingRules() async throws {
        // A 2 s interval, so the back-to-back second poll is "too fast" even on a loaded machine.
        let lifetimes = TokenLifetimes(devicePollingInterval: 2, deviceSlowDownIncrement: 0.2)
        try await Fixture.with(Self.configuration(lifetimes: lifetimes)) { provider in
            let wire = Wire(provider: provider)
            let id = try #require(try await Self.ask(wire, [("scope", "openid"), ("login_hint", "demo")])["auth_req_id"]?.stringValue)
            let poll = [("grant_type", GrantType.ciba), ("auth_req_id", id)]
            let first = try await wire.post("/token", poll, basic: ("ciba-client", "ciba-secret"))
            #expect(Wire.json(first)["error"] == .string("authorization_pending"))
            let second = try await wire.post("/token", poll, basic: ("ciba-client", "ciba-secret"))
            #expect(Wire.json(second)["error"] == .string("slow_down"))
        }
        try await Fixture.with(Self.configuration(lifetimes: TokenLifetimes(deviceCode: 0.3, devicePollingInterval: 0))) { provider in
            let wire = Wire(provider: provider)
            let id = try #require(try await Self.ask(wire, [("scope", "openid"), ("login_hint", "demo")])["auth_req_id"]?.stringValue)
            try await Task.sleep(nanoseconds: 350_000_000)
            let late = try await wire.post(
                "/token", [("grant_type", GrantType.ciba), ("auth_req_id", id)], basic: ("ciba-client", "ciba-secret"))
            #expect(Wire.json(late)["error"] == .string("expired_token"))
        }
    }

    @Test("ping mode: the provider's notification wakes the wait; a wrong token or id is not accepted")
    func ping() async throws {
        let inbox = PingInbox()
        let router = Router()
        router.post("/ciba-ping") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 8192)
            let notification = try BackchannelNotification(
                authorization: request.headers[.authorization], body: Data(body.readableBytesView))
            return Response(status: await inbox.deliver(notification) ? .noContent : .unauthorized)
        }
        let server = try await LoopbackHTTPServer.start(router.buildResponder(), label: "ping", logLevel: .critical)
        defer { Task { await server.stop() } }
        let configuration = Self.configuration(notification: server.base.appendingPathComponent("ciba-ping"))
        try await Fixture.with(configuration) { provider in
            var request = BackchannelAuthenticationRequest(user: .loginHint("demo"))
            request.deliveryMode = .ping
            // A clock whose sleep ends only when cancelled: only the ping can end a wait.
            let pending = try await Self.client(provider).startBackchannelAuthentication(request, clock: StuckClock())
            await inbox.expect(pending)
            let forged = try BackchannelNotification(
                authorization: "Bearer forged", body: Data(#"{"auth_req_id":"\#(pending.response.authenticationRequestID)"}"#.utf8))
            #expect(!pending.accept(forged))
            let wire = Wire(provider: provider)
            _ = try await wire.post("/ciba", [("request", try await Self.approvalHandle(wire)), ("decision", "allow")])
            let credentials = try await withThrowingTaskGroup(of: OAuthCredentials?.self) { group in
                group.addTask { try await pending.credentials() }
                group.addTask {
                    try await Task.sleep(nanoseconds: 20_000_000_000)
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            #expect(credentials?.subject == "demo")
            #expect(await inbox.accepted == 1)
        }
    }

    private static func ask(_ wire: Wire, _ pairs: [(String, String)], publicly: Bool = false) async throws -> [String: JSONMemberValue] {
        Wire.json(try await wire.post("/bc-authorize", pairs, basic: publicly ? nil : ("ciba-client", "ciba-secret")))
    }

    private static func error(_ wire: Wire, _ pairs: [(String, String)], publicly: Bool = false) async throws -> String? {
        try await ask(wire, pairs, publicly: publicly)["error"]?.stringValue
    }

    @Test("the provider's refusals, each with its CIBA error code")
    func refusals() async throws {
        try await Fixture.with(Self.configuration()) { (provider: EmbeddedProvider) async throws in
            let wire = Wire(provider: provider)
            #expect(try await Self.error(wire, [("scope", "profile"), ("login_hint", "demo")]) == "invalid_scope")
            #expect(
                try await Self.error(wire, [("scope", "openid"), ("login_hint", "demo"), ("id_token_hint", "x.y.z")]) == "invalid_request")
            #expect(try await Self.error(wire, [("scope", "openid")]) == "invalid_request")
            #expect(try await Self.error(wire, [("scope", "openid"), ("login_hint", "nobody")]) == "unknown_user_id")
            #expect(
                try await Self.error(wire, [("scope", "openid"), ("login_hint", "demo"), ("binding_message", "line\nbreak")])
                    == "invalid_binding_message")
            #expect(
                try await Self.error(
                    wire, [("scope", "openid"), ("login_hint", "demo"), ("binding_message", String(repeating: "x", count: 129))])
                    == "invalid_binding_message")
            #expect(
                try await Self.error(wire, [("scope", "openid"), ("login_hint", "demo"), ("requested_expiry", "-5")]) == "invalid_request")
            // A public client may not: CIBA needs client authentication.
            #expect(
                try await Self.error(wire, [("scope", "openid"), ("login_hint", "demo"), ("client_id", "authflow-demo")], publicly: true)
                    == "unauthorized_client")
            // A token this provider did not sign, and an ID token of another client.
            #expect(try await Self.error(wire, [("scope", "openid"), ("login_hint_token", "e30.e30.c2ln")]) == "invalid_request")
        }
    }

    @Test("login_hint_token: this provider's JWT names the user; expired is expired_login_hint_token; id_token_hint must be this client's")
    func hintTokens() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let wire = Wire(provider: provider)
            let key = Fixture.keys[0]
            let issuer = provider.issuer.identifier
            func token(_ claims: [String: JSONMemberValue]) throws -> String {
                let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"\#(key.keyID)","typ":"JWT"}"#.utf8))
                let body = Base64URL.encode(Array(try JSONEncoder().encode(JSONMemberValue.object(claims))))
                return "\(header).\(body).\(Base64URL.encode(try key.sign(Array("\(header).\(body)".utf8))))"
            }
            let now = Date().timeIntervalSince1970
            let byEmail = try token([
                "iss": .string(issuer), "exp": .number(now + 60),
                "sub_id": .object(["format": .string("email"), "email": .string("bob@example.com")]),
            ])
            #expect(try await Self.ask(wire, [("scope", "openid"), ("login_hint_token", byEmail)])["auth_req_id"] != nil)
            let expired = try token(["iss": .string(issuer), "exp": .number(now - 60), "sub": .string("bob")])
            #expect(
                try await Self.ask(wire, [("scope", "openid"), ("login_hint_token", expired)])["error"]
                    == .string("expired_login_hint_token"))
            let otherClients = try token(["iss": .string(issuer), "aud": .string("authflow-demo"), "sub": .string("bob")])
            #expect(
                try await Self.ask(wire, [("scope", "openid"), ("id_token_hint", otherClients)])["error"] == .string("invalid_request"))
            let own = try token(["iss": .string(issuer), "aud": .array([.string("ciba-client")]), "sub": .string("bob")])
            #expect(try await Self.ask(wire, [("scope", "openid"), ("id_token_hint", own)])["auth_req_id"] != nil)
        }
    }

    @Test("only the user the hint named can approve; another client cannot redeem the auth_req_id")
    func wrongUserAndClient() async throws {
        try await Fixture.with(Self.configuration(signIn: .loginPage)) { provider in
            let wire = Wire(provider: provider)
            let pending = try await Self.client(provider).startBackchannelAuthentication(
                BackchannelAuthenticationRequest(user: .loginHint("bob")))
            let handle = try await Self.approvalHandle(wire)
            let wrongPassword = try await wire.post(
                "/ciba", [("request", handle), ("decision", "allow"), ("username", "bob"), ("password", "x")])
            #expect(wrongPassword.status == 400)
            let demo = try await wire.post(
                "/ciba", [("request", handle), ("decision", "allow"), ("username", "demo"), ("password", "demo")])
            #expect(demo.status == 403)
            let id = pending.response.authenticationRequestID
            let stolen = try await wire.post(
                "/token", [("grant_type", GrantType.ciba), ("auth_req_id", id)], basic: (Fixture.oddID, Fixture.oddSecret))
            #expect(Wire.json(stolen)["error"] == .string("invalid_grant"))
            let mine = try await wire.post(
                "/token", [("grant_type", GrantType.ciba), ("auth_req_id", id)], basic: ("ciba-client", "ciba-secret"))
            #expect(Wire.json(mine)["error"] == .string("authorization_pending"))
        }
    }

    @Test("the engine refuses a public client and a malformed request before sending anything")
    func engineRefusals() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let public_ = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            await #expect(
                throws: AuthFlowError(
                    .configuration,
                    "backchannel authentication (CIBA) needs a client that authenticates; this one is public (token_endpoint_auth_method none)"
                )
            ) { _ = try await public_.startBackchannelAuthentication(BackchannelAuthenticationRequest(user: .loginHint("demo"))) }
            let client = try await Self.client(provider)
            var request = BackchannelAuthenticationRequest(user: .loginHint("demo"))
            request.bindingMessage = "two\nlines"
            await #expect(
                throws: AuthFlowError(
                    .configuration, "the binding message must be 1 to 128 printable characters on one line")
            ) { _ = try await client.startBackchannelAuthentication(request) }
            await #expect(throws: AuthFlowError(.configuration, "login_hint must be 1 to 512 bytes without control characters")) {
                _ = try await client.startBackchannelAuthentication(BackchannelAuthenticationRequest(user: .loginHint("")))
            }
        }
    }
}

/// The client's notification endpoint: hands each ping to the pending request.
private actor PingInbox {
    private var pending: PendingBackchannelAuthentication?
    private(set) var accepted = 0

    func expect(_ pending: PendingBackchannelAuthentication) { self.pending = pending }

    func deliver(_ notification: BackchannelNotification) -> Bool {
        guard let pending, pending.accept(notification) else { return false }
        accepted += 1
        return true
    }
}

/// A polling clock whose sleep lasts until the task is cancelled.
private struct StuckClock: PollingClock {
    var now: ContinuousClock.Instant { ContinuousClock.now }
    func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: .seconds(3600))
    }
}
#endif
