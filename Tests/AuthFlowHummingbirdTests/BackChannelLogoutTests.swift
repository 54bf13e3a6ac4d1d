#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import AuthFlowHummingbird
import Foundation
import Testing

/// OpenID Connect Back-Channel Logout 1.0 at the API's endpoint: logout
/// tokens signed with the provider's keys, checked with its JWK Set.
@Suite("Back-channel logout")
struct BackChannelLogoutTests {
    static let event = "http://schemas.openid.net/event/backchannel-logout"

    static func claims(_ api: TestAPI, _ changes: [String: JSONMemberValue?] = [:]) -> [String: JSONMemberValue] {
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONMemberValue] = [
            "iss": .string(api.provider.issuer.identifier), "aud": .string("authflow-demo-backend"), "sub": .string("demo"),
            "sid": .string("session-1"), "iat": .number(now), "exp": .number(now + 120), "jti": .string(UUID().uuidString),
            "events": .object([event: .object([:])]),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func post(_ api: TestAPI, _ token: String) async throws -> HTTPTransportResponse {
        try await api.send(
            "POST", api.base.appending(path: "backchannel-logout"), body: Data(FormEncoding.encode([("logout_token", token)]).utf8),
            contentType: "application/x-www-form-urlencoded")
    }

    static func error(_ response: HTTPTransportResponse) -> String? {
        JSONMemberValue.object(from: response.body)?["error_description"]?.stringValue
    }

    @Test("a good logout token reaches the handler with sub and sid, once; a replay is refused")
    func accepted() async throws {
        try await TestAPI.with { api in
            let token = try TestKeys.sign(Self.claims(api), header: ["typ": .string("logout+jwt")])
            let response = try await Self.post(api, token)
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            let logouts = api.logouts.withLock { $0 }
            #expect(logouts.map(\.subject) == ["demo"] && logouts.map(\.sessionID) == ["session-1"])
            let replay = try await Self.post(api, token)
            #expect(replay.status == 400)
            #expect(Self.error(replay) == "the logout token was already used (jti replay)")
            #expect(api.logouts.withLock { $0.count } == 1)
            // Without typ it is accepted too; only sid is enough.
            #expect(try await Self.post(api, try TestKeys.sign(Self.claims(api, ["sub": nil]), header: [:])).status == 200)
        }
    }

    @Test("each logout token rule refuses its bad input with 400 and the rule")
    func rules() async throws {
        try await TestAPI.with { api in
            let cases: [(String, String, String)] = [
                (
                    "nonce", try TestKeys.sign(Self.claims(api, ["nonce": .string("n")]), header: [:]),
                    "a logout token must not carry a nonce"
                ),
                ("no events", try TestKeys.sign(Self.claims(api, ["events": nil]), header: [:]), "the logout token has no events member"),
                (
                    "other event", try TestKeys.sign(Self.claims(api, ["events": .object(["urn:other": .object([:])])]), header: [:]),
                    "the logout token's events member has no back-channel logout event"
                ),
                (
                    "wrong aud", try TestKeys.sign(Self.claims(api, ["aud": .string("someone-else")]), header: [:]),
                    "the token is not addressed to authflow-demo-backend"
                ),
                (
                    "wrong iss", try TestKeys.sign(Self.claims(api, ["iss": .string("https://evil.example")]), header: [:]),
                    "the token's iss is not \(api.provider.issuer.identifier)"
                ),
                (
                    "no sub or sid", try TestKeys.sign(Self.claims(api, ["sub": nil, "sid": nil]), header: [:]),
                    "the logout token names neither sub nor sid"
                ),
                ("no jti", try TestKeys.sign(Self.claims(api, ["jti": nil]), header: [:]), "the logout token has no jti"),
                ("no iat", try TestKeys.sign(Self.claims(api, ["iat": nil]), header: [:]), "the logout token has no iat"),
                (
                    "wrong typ", try TestKeys.sign(Self.claims(api), header: ["typ": .string("JWT")]),
                    "the logout token's typ is not logout+jwt"
                ),
                (
                    "unknown key", try TestKeys.sign(Self.claims(api), header: [:], with: .stranger),
                    "no key in the provider's JWK Set fits the token"
                ),
            ]
            for (name, token, description) in cases {
                let response = try await Self.post(api, token)
                #expect(response.status == 400, "\(name)")
                #expect(Self.error(response) == description, "\(name)")
            }
            #expect(api.logouts.withLock { $0.isEmpty })
            let notForm = try await api.send(
                "POST", api.base.appending(path: "backchannel-logout"), body: Data("{}".utf8), contentType: "application/json")
            #expect(notForm.status == 400 && Self.error(notForm) == "the request is not a form POST")
            let failing = try await Self.post(api, try TestKeys.sign(Self.claims(api, ["sub": .string("refuse-me")]), header: [:]))
            #expect(failing.status == 400 && Self.error(failing) == "the sessions could not be ended")
            // A handler that failed: the provider's retry of the same token is taken, then a replay is refused.
            let retried = try TestKeys.sign(Self.claims(api, ["sub": .string("refuse-once")]), header: [:])
            let first = try await Self.post(api, retried)
            #expect(first.status == 400 && Self.error(first) == "the sessions could not be ended")
            #expect(try await Self.post(api, retried).status == 200)
            #expect(api.logouts.withLock { $0.map(\.subject) } == ["refuse-once"])
            let replayed = try await Self.post(api, retried)
            #expect(replayed.status == 400 && Self.error(replayed) == "the logout token was already used (jti replay)")
        }
    }
}
#endif
