#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowHummingbird
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// RFC 9470 at the API: a route that needs an `acr` and a recent
/// `auth_time` answers 401 `insufficient_user_authentication` with
/// `acr_values` and `max_age`, and `AuthSession` follows it once.
@Suite("Authentication requirements (RFC 9470)")
struct AuthenticationRequirementTests {
    static func challengeOf(_ api: TestAPI, _ description: String) -> String {
        let acr = #"acr_values="urn:example:mfa urn:example:hardware", max_age="300""#
        return #"Bearer error="insufficient_user_authentication", error_description="\#(description)", \#(acr), "#
            + #"resource_metadata="\#(api.metadataURL)", DPoP algs="ES256 EdDSA PS256 RS256", resource_metadata="\#(api.metadataURL)""#
    }

    @Test("each shortfall is refused with the challenge that says what the route needs")
    func shortfalls() async throws {
        try await TestAPI.with { api in
            let now = Date().timeIntervalSince1970.rounded(.down)
            let cases: [(String, [String: JSONMemberValue?], String)] = [
                ("no acr", ["auth_time": .number(now - 10)], "the access token does not say how the user authenticated (acr)"),
                (
                    "another acr", ["acr": .string("urn:example:password"), "auth_time": .number(now - 10)],
                    "the user authenticated at a level this resource does not accept (acr)"
                ),
                (
                    "no auth_time", ["acr": .string("urn:example:mfa")],
                    "the access token does not say when the user authenticated (auth_time)"
                ),
                (
                    "too long ago", ["acr": .string("urn:example:mfa"), "auth_time": .number(now - 3600)],
                    "the user authenticated too long ago for this resource (auth_time)"
                ),
            ]
            for (name, changes, description) in cases {
                let token = try TestKeys.sign(api.claims(changes))
                let response = try await api.send("GET", api.transfers, authorization: "Bearer \(token)")
                #expect(response.status == 401, "\(name)")
                #expect(TestAPI.challenges(response) == Self.challengeOf(api, description), "\(name)")
            }
            // Either accepted value, recently: through. Other routes do not ask.
            for acr in ["urn:example:mfa", "urn:example:hardware"] {
                let token = try TestKeys.sign(api.claims(["acr": .string(acr), "auth_time": .number(now - 10)]))
                #expect(try await api.send("GET", api.transfers, authorization: "Bearer \(token)").status == 200)
            }
            #expect(try await api.send(authorization: "Bearer \(try TestKeys.sign(api.claims()))").status == 200)
            // Scopes come first: a token without them is insufficient_scope, whatever its acr.
            let narrow = try TestKeys.sign(api.claims(["scope": .string("write")]))
            #expect(try await api.send("GET", api.transfers, authorization: "Bearer \(narrow)").status == 403)
        }
    }

    @Test("AuthSession follows the challenge: one sign-in with the acr_values and max_age, one retry")
    func sessionStepsUp() async throws {
        try await TestAPI.with { api in
            let now = Date().timeIntervalSince1970.rounded(.down)
            let weak = try TestKeys.sign(api.claims(["acr": .string("urn:example:password"), "auth_time": .number(now - 10)]))
            let strong = try TestKeys.sign(api.claims(["acr": .string("urn:example:mfa"), "auth_time": .number(now)]))
            let issuer = api.provider.issuer
            let client = try await OAuthClient(issuer: issuer, clientID: "authflow-demo")
            let session = AuthSession(client: client, credentials: try Self.credentials(weak, issuer: issuer))
            let demands = LockedValue<[AuthSession.StepUpDemand]>([])
            let answer = try await session.send(HTTPTransportRequest(method: "GET", url: api.transfers)) { demand in
                demands.withLock { $0.append(demand) }
                return try Self.credentials(strong, issuer: issuer)
            }
            #expect(answer.status == 200)
            #expect(
                demands.withLock { $0 } == [
                    AuthSession.StepUpDemand(
                        error: "insufficient_user_authentication", scopes: ["read", "write"],
                        acrValues: ["urn:example:mfa", "urn:example:hardware"], maxAge: 300)
                ])
        }
    }

    static func credentials(_ token: String, issuer: Issuer) throws -> OAuthCredentials {
        let body = #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":300,"scope":"read write"}"#
        return OAuthCredentials(
            issuer: issuer, clientID: "authflow-demo", token: try TokenResponse(json: Data(body.utf8), requestedScopes: []),
            idToken: nil)
    }

    @Test("a requirement of nothing, a bad acr value or a negative age is a configuration error")
    func badRequirements() throws {
        #expect(throws: AuthFlowError.self) { try AuthenticationRequirement() }
        #expect(throws: AuthFlowError.self) { try AuthenticationRequirement(acrValues: ["two words"]) }
        #expect(throws: AuthFlowError.self) { try AuthenticationRequirement(acrValues: ["a\"b"]) }
        #expect(throws: AuthFlowError.self) { try AuthenticationRequirement(acrValues: [""]) }
        #expect(throws: AuthFlowError.self) { try AuthenticationRequirement(maxAge: -1) }
        #expect(try AuthenticationRequirement(maxAge: 0).maxAge == 0)
    }
}
#endif
