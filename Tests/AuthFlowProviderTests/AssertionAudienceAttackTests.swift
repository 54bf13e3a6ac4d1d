#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

/// The JWT client-authentication audience attack (OpenID Foundation
/// disclosure, 2025-02-25; draft-ietf-oauth-rfc7523bis): a hostile
/// authorization server names an honest provider's token endpoint as its own
/// and itself as the PAR endpoint, captures the client's assertion there and
/// redeems it at the honest provider. Run here with two real servers on
/// 127.0.0.1.
@Suite("Client assertion audience attack")
struct AssertionAudienceAttackTests {
    static let key = try! ClientAssertionKey.generate(algorithm: "ES256", keyID: "victim")
    static let secret = "victim-client-secret-jwt-0123456789-0123456789"

    static func honest(_ body: (EmbeddedProvider) async throws -> Void) async throws {
        var configuration = Fixture.configuration()
        configuration.clients += [
            ProviderClient(
                id: "victim", authentication: .privateKeyJWT, redirectURIs: ["http://127.0.0.1/callback"],
                grantTypes: Set(GrantType.all), jwks: .object(["keys": .array([.object(key.publicJWK)])])),
            ProviderClient(
                id: "victim-hmac", secret: secret, authentication: .clientSecretJWT, redirectURIs: ["http://127.0.0.1/callback"],
                grantTypes: Set(GrantType.all)),
        ]
        try await Fixture.with(configuration, body)
    }

    /// Signs in at the hostile server as `clientID` (pushing the request to
    /// it), then replays the captured assertion at the honest token endpoint.
    static func captureAndReplay(
        _ provider: EmbeddedProvider, clientID: String,
        _ authentication: ClientAuthentication
    ) async throws -> (aud: JSONMemberValue?, status: Int, body: [String: JSONMemberValue]) {
        let hostile = try await HostileServer.start(honestTokenEndpoint: provider.issuer.url.appendingPathComponent("token"))
        do {
            let client = try await OAuthClient(
                issuer: Issuer(await hostile.issuer), clientID: clientID, authentication: authentication)
            _ = try await client.pushedAuthorizationRequest(redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: ["openid"])
            let captured = try #require(await hostile.capturedForms.first?["client_assertion"])
            let aud = try CompactJWS(captured).claims["aud"]
            let replay = try await Wire(provider: provider).post(
                "/token",
                [
                    ("grant_type", "client_credentials"),
                    ("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"), ("client_assertion", captured),
                ])
            await hostile.stop()
            return (aud, replay.status, Wire.json(replay))
        } catch {
            await hostile.stop()
            throw error
        }
    }

    @Test("private_key_jwt: the assertion names the hostile issuer; replayed at the honest provider it is refused")
    func privateKeyJWTReplayIsRefused() async throws {
        try await Self.honest { provider in
            let (aud, status, body) = try await Self.captureAndReplay(provider, clientID: "victim", .privateKeyJWT(key: Self.key))
            #expect(aud?.stringValue?.hasPrefix("http://127.0.0.1:") == true && aud?.stringValue != provider.issuer.identifier)
            #expect(status == 400)
            #expect(body["error"] == .string("invalid_client"))
            #expect(body["error_description"] == .string("the client assertion's aud is not this issuer"))
        }
    }

    @Test("client_secret_jwt: the same replay is refused")
    func clientSecretJWTReplayIsRefused() async throws {
        try await Self.honest { provider in
            let (_, status, body) = try await Self.captureAndReplay(
                provider, clientID: "victim-hmac", .clientSecretJWT(secret: Self.secret))
            #expect(status == 400)
            #expect(body["error_description"] == .string("the client assertion's aud is not this issuer"))
        }
    }

    @Test("a client that opts into the token-endpoint audience is exposed; the provider still refuses unless it opts in too")
    func tokenEndpointAudienceOnlyWhereBothOptIn() async throws {
        try await Self.honest { provider in
            let (aud, status, body) = try await Self.captureAndReplay(
                provider, clientID: "victim", .privateKeyJWT(key: Self.key, audience: .tokenEndpoint))
            #expect(aud == .string(provider.issuer.url.appendingPathComponent("token").absoluteString))
            #expect(status == 400 && body["error_description"] == .string("the client assertion's aud is not this issuer"))
        }
    }
}
#endif
