#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

@Suite("Token endpoint rules")
struct TokenRuleTests {
    private func client(_ provider: EmbeddedProvider) async throws -> OAuthClient {
        try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
    }

    @Test("a wrong code_verifier is invalid_grant")
    func wrongVerifier() async throws {
        try await Fixture.with { provider in
            let client = try await client(provider)
            var (_, grant) = try await authorize(client)
            grant.codeVerifier = String(repeating: "x", count: 43)
            let error = await #expect(throws: AuthFlowError.self) { try await client.exchange(grant) }
            #expect(error?.oauth?.error == "invalid_grant")
        }
    }

    @Test("code reuse is invalid_grant and revokes the access token the first use issued")
    func codeReuse() async throws {
        try await Fixture.with { provider in
            let client = try await client(provider)
            let (_, grant) = try await authorize(client)
            let first = try await client.exchange(grant)
            let wire = Wire(provider: provider)
            #expect(try await wire.introspect(first.accessToken)["active"] == .bool(true))
            let error = await #expect(throws: AuthFlowError.self) { try await client.exchange(grant) }
            #expect(error?.oauth?.error == "invalid_grant")
            #expect(try await wire.introspect(first.accessToken)["active"] == .bool(false))
            #expect(try await wire.introspect(#require(first.token.refreshToken))["active"] == .bool(false))
        }
    }

    @Test("a code is bound to its client and redirect URI")
    func codeBinding() async throws {
        try await Fixture.with { provider in
            let client = try await client(provider)
            var (_, grant) = try await authorize(client)
            grant.redirectURI = URL(string: "http://127.0.0.1:10/callback")!
            let redirect = await #expect(throws: AuthFlowError.self) { try await client.exchange(grant) }
            #expect(redirect?.oauth?.error == "invalid_grant")
            let (_, other) = try await authorize(client)
            let es = try await OAuthClient(issuer: provider.issuer, clientID: "es-client")
            var stolen = other
            stolen.clientID = "es-client"
            let wrongClient = await #expect(throws: AuthFlowError.self) { try await es.exchange(stolen) }
            #expect(wrongClient?.oauth?.error == "invalid_grant")
        }
    }

    @Test("refresh tokens rotate; a replayed one revokes the family")
    func refreshReplay() async throws {
        try await Fixture.with { provider in
            let client = try await client(provider)
            let original = try await client.exchange(authorize(client).1)
            let second = try await client.refresh(original)
            let replay = await #expect(throws: AuthFlowError.self) { try await client.refresh(original) }
            #expect(replay?.oauth?.error == "invalid_grant")
            let afterReplay = await #expect(throws: AuthFlowError.self) { try await client.refresh(second) }
            #expect(afterReplay?.oauth?.error == "invalid_grant")
            let wire = Wire(provider: provider)
            #expect(try await wire.introspect(second.accessToken)["active"] == .bool(false))
            #expect(try await wire.introspect(original.accessToken)["active"] == .bool(false))
        }
    }

    @Test("a repeated form parameter is invalid_request, with Cache-Control: no-store")
    func repeatedFormParameter() async throws {
        try await Fixture.with { provider in
            let response = try await Wire(provider: provider).post(
                "/token", body: "grant_type=authorization_code&code=a&code=b&redirect_uri=x&code_verifier=y&client_id=authflow-demo")
            #expect(response.status == 400)
            #expect(Wire.json(response)["error"] == .string("invalid_request"))
            #expect(response.header("Cache-Control") == "no-store")
            #expect(response.mediaType == "application/json")
        }
    }

    @Test("unknown grant types, unauthorized grants, unknown clients")
    func grantAndClientErrors() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let unknown = try await wire.post("/token", [("grant_type", "password"), ("client_id", "authflow-demo")])
            #expect(Wire.json(unknown)["error"] == .string("unsupported_grant_type"))
            let publicCC = try await wire.post("/token", [("grant_type", "client_credentials"), ("client_id", "authflow-demo")])
            #expect(Wire.json(publicCC)["error"] == .string("unauthorized_client"))
            let nobody = try await wire.post("/token", [("grant_type", "client_credentials"), ("client_id", "nobody")])
            #expect(nobody.status == 400 && Wire.json(nobody)["error"] == .string("invalid_client"))
            let badSecret = try await wire.post("/token", [("grant_type", "client_credentials")], basic: (Fixture.backend.id, "wrong"))
            #expect(badSecret.status == 401 && Wire.json(badSecret)["error"] == .string("invalid_client"))
        }
    }

    @Test("client_credentials: an access token only, introspectable")
    func clientCredentials() async throws {
        try await Fixture.with { provider in
            let wire = Wire(provider: provider)
            let response = try await wire.post(
                "/token", [("grant_type", "client_credentials"), ("scope", "profile")],
                basic: (Fixture.backend.id, Fixture.backend.secret!))
            let body = Wire.json(response)
            #expect(response.status == 200 && response.header("Cache-Control") == "no-store")
            #expect(body["refresh_token"] == nil && body["id_token"] == nil && body["token_type"] == .string("Bearer"))
            let token = try #require(body["access_token"]?.stringValue)
            let info = try await wire.introspect(token)
            #expect(info["active"] == .bool(true) && info["client_id"] == .string(Fixture.backend.id) && info["sub"] == nil)
        }
    }
}
#endif
