#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// The embedded provider's token exchange rules, each with the bad request
/// and the exact error it gets.
@Suite("Token exchange rules")
struct TokenExchangeRuleTests {
    /// The backend client may exchange for `billing` but not delegate.
    static func configuration(delegation: Bool = false) -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.tokenExchangePolicy = TokenExchangePolicy([
            .init(
                clientID: Fixture.backend.id, audiences: ["billing"], resources: [TokenExchangeTests.billing], allowsDelegation: delegation)
        ])
        return configuration
    }

    /// Runs the request and returns the provider's error code and description.
    static func refusal(_ client: OAuthClient, _ request: TokenExchangeRequest) async -> (String?, String?) {
        do {
            _ = try await client.exchangeToken(request)
            return (nil, nil)
        } catch let error as AuthFlowError {
            return (error.oauth?.error, error.oauth?.errorDescription)
        } catch {
            return ("\(error)", nil)
        }
    }

    @Test("an actor token without delegation in the policy, a wider scope, openid, another token type, two targets are refused")
    func refusals() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await TokenExchangeTests.signedIn(provider)
            let subject = TokenExchangeRequest.SecurityToken(credentials.accessToken, type: .accessToken)
            let actor = try await client.clientCredentials()
            let billing = try ResourceIdentifier(URL(string: TokenExchangeTests.billing)!)
            let cases: [(TokenExchangeRequest, String, String)] = [
                (
                    TokenExchangeRequest(subject: subject, actor: .init(actor.accessToken, type: .accessToken), audiences: ["billing"]),
                    "invalid_request", "the client may not present an actor token"
                ),
                (
                    TokenExchangeRequest(subject: subject, audiences: ["billing"], scopes: ["admin"]),
                    "invalid_scope", "the scope admin cannot be granted by token exchange"
                ),
                (
                    TokenExchangeRequest(subject: subject, audiences: ["billing"], scopes: ["openid"]),
                    "invalid_scope", "the scope openid cannot be granted by token exchange"
                ),
                (
                    TokenExchangeRequest(subject: subject, requestedTokenType: .refreshToken, audiences: ["billing"]),
                    "invalid_request", "only access tokens and identity assertions are issued by token exchange"
                ),
                (
                    TokenExchangeRequest(subject: subject, audiences: ["billing"], resources: [billing]),
                    "invalid_target", "name either an audience or a resource, not both"
                ),
                (
                    TokenExchangeRequest(subject: subject, audiences: ["billing", "billing"]),
                    "invalid_request", "the audience parameter is repeated"
                ),
                (
                    TokenExchangeRequest(subject: .init(credentials.accessToken, type: .jwt), audiences: ["billing"]),
                    "invalid_request", "the subject_token_type is not supported; use an access token or an ID token"
                ),
                (
                    // A JWT access token is not an ID token, though the provider signed it.
                    TokenExchangeRequest(subject: .init(credentials.accessToken, type: .idToken), audiences: ["billing"]),
                    "invalid_request", "the subject token is not an ID token signed by this provider"
                ),
                (
                    // A refresh token is not an access token.
                    TokenExchangeRequest(
                        subject: .init(try #require(credentials.token.refreshToken), type: .accessToken), audiences: ["billing"]),
                    "invalid_request", "the subject token is not an active access token of this provider"
                ),
            ]
            for (request, code, description) in cases {
                let (gotCode, gotDescription) = await Self.refusal(client, request)
                #expect(gotCode == code, "\(request)")
                #expect(gotDescription == description, "\(request)")
            }
        }
    }

    @Test("a revoked subject token cannot be exchanged, and revoking the grant revokes the exchanged token")
    func revocation() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let (client, credentials) = try await TokenExchangeTests.signedIn(provider)
            let subject = TokenExchangeRequest.SecurityToken(credentials.accessToken, type: .accessToken)
            let issued = try await client.exchangeToken(TokenExchangeRequest(subject: subject, audiences: ["billing"]))
            let wire = Wire(provider: provider)
            #expect(try await wire.introspect(issued.issuedToken)["active"] == .bool(true))
            let refreshToken = try #require(credentials.token.refreshToken)
            let revoked = try await wire.post(
                "/revoke", [("token", refreshToken), ("token_type_hint", "refresh_token")],
                basic: (Fixture.backend.id, Fixture.backend.secret!))
            #expect(revoked.status == 200)
            #expect(try await wire.introspect(issued.issuedToken)["active"] == .bool(false))
            let (code, description) = await Self.refusal(client, TokenExchangeRequest(subject: subject, audiences: ["billing"]))
            #expect(code == "invalid_request")
            #expect(description == "the subject token is not an active access token of this provider")
        }
    }

    @Test("a policy rule for an unknown client, or one without the grant type, stops the provider from starting")
    func policyValidation() async throws {
        var unknown = Fixture.configuration()
        unknown.tokenExchangePolicy = TokenExchangePolicy([.init(clientID: "nobody", audiences: ["billing"])])
        let error = await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(unknown) }
        #expect(
            error?.description
                == "token exchange policy: client nobody is not configured with the grant type urn:ietf:params:oauth:grant-type:token-exchange"
        )
        var withoutGrant = Fixture.configuration()
        withoutGrant.tokenExchangePolicy = TokenExchangePolicy([.init(clientID: "authflow-demo", audiences: ["billing"])])
        await #expect(throws: ProviderConfigurationError.self) { try await EmbeddedProvider.start(withoutGrant) }
    }

    @Test("a DPoP-bound subject token is exchanged only with a proof of its key, for a token bound to the same key")
    func dpopBoundSubject() async throws {
        try await Fixture.with(Self.configuration()) { provider in
            let binding = DPoPBinding()
            var client = try await OAuthClient(
                issuer: provider.issuer, clientID: Fixture.backend.id, authentication: .clientSecretBasic(secret: Fixture.backend.secret!))
            client.dpop = binding
            let credentials = try await client.exchange(authorize(client, scopes: ["openid", "profile"]).1)
            #expect(credentials.token.tokenType == "DPoP")
            let request = TokenExchangeRequest(subject: .init(credentials.accessToken, type: .accessToken), audiences: ["billing"])
            let issued = try await client.exchangeToken(request)
            #expect(issued.token.tokenType == "DPoP")
            #expect(try CompactJWS(issued.issuedToken).claims["cnf"] == .object(["jkt": .string(binding.key.thumbprint)]))
            var keyless = client
            keyless.dpop = nil
            #expect(await Self.refusal(keyless, request) == ("invalid_grant", "the subject token is DPoP-bound; a DPoP proof is required"))
            var otherKey = client
            otherKey.dpop = DPoPBinding()
            #expect(await Self.refusal(otherKey, request) == ("invalid_grant", "the subject token is bound to another DPoP key"))
        }
    }
}
#endif
