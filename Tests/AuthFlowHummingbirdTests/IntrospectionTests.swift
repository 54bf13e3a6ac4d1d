#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import AuthFlowHummingbird
import Foundation
import Testing

/// Opaque tokens from the embedded provider, checked at its real
/// introspection endpoint (RFC 7662) with the API's client credentials.
@Suite("Opaque tokens by introspection")
struct IntrospectionTests {
    /// A client-credentials token from the provider for the API (RFC 8707 `resource`: the introspected `aud`).
    static func client(_ api: TestAPI, dpop: DPoPKey? = nil) async throws -> OAuthClient {
        var client = try await OAuthClient(
            issuer: api.provider.issuer, clientID: api.resourceURL.absoluteString,
            authentication: .clientSecretBasic(secret: TestAPI.apiSecret))
        client.resource = try ResourceIdentifier(api.resourceURL)
        if let dpop { client.dpop = DPoPBinding(key: dpop) }
        return client
    }

    @Test("an opaque token is introspected, Bearer and DPoP-bound, sent by AuthSession")
    func accepted() async throws {
        try await TestAPI.with { api in
            let bearerClient = try await Self.client(api)
            let bearer = AuthSession(
                client: bearerClient, credentials: try await bearerClient.clientCredentials(scopes: ["read", "write"]))
            let answer = try await bearer.send(HTTPTransportRequest(method: "GET", url: api.items))
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self).contains(#""source":"introspection""#))
            // From the cache the second time: same answer.
            #expect(try await bearer.send(HTTPTransportRequest(method: "GET", url: api.items)).status == 200)
            let key = DPoPKey()
            let boundClient = try await Self.client(api, dpop: key)
            let bound = AuthSession(client: boundClient, credentials: try await boundClient.clientCredentials(scopes: ["read", "write"]))
            let boundAnswer = try await bound.send(HTTPTransportRequest(method: "GET", url: api.items))
            #expect(boundAnswer.status == 200)
            #expect(String(decoding: boundAnswer.body, as: UTF8.self).contains(#""jkt":"\#(key.thumbprint)""#))
        }
    }

    @Test("an inactive token (revoked, unknown) is 401 invalid_token; a token for another client's aud is refused")
    func inactive() async throws {
        try await TestAPI.with { api in
            let client = try await Self.client(api)
            let credentials = try await client.clientCredentials(scopes: ["read", "write"])
            try await client.revoke(credentials.accessToken, hint: .accessToken)
            for token in [credentials.accessToken, "not-a-token-the-provider-issued"] {
                let response = try await api.send(authorization: "Bearer \(token)")
                #expect(response.status == 401)
                #expect(TestAPI.challenges(response) == api.expected(error: "invalid_token", description: "the token is not active"))
            }
            // The demo backend's token, asked for no resource: its aud is the provider's userinfo endpoint, not this API.
            let other = try await OAuthClient(
                issuer: api.provider.issuer, clientID: "authflow-demo-backend", authentication: .clientSecretBasic(secret: "demo-secret"))
            let otherToken = try await other.clientCredentials().accessToken
            let response = try await api.send(authorization: "Bearer \(otherToken)")
            #expect(response.status == 401)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(error: "invalid_token", description: "the token is not addressed to \(api.resourceURL.absoluteString)"))
        }
    }

    @Test("a refresh token for the API (active, aud the API) is no access token: token_type refresh_token is 401 invalid_token")
    func refreshTokenIsNoAccessToken() async throws {
        try await TestAPI.with { api in
            var client = try await OAuthClient(issuer: api.provider.issuer, clientID: "authflow-demo")
            client.resource = try ResourceIdentifier(api.resourceURL)
            let request = try client.authorizationRequest(
                redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: ["openid", "offline_access"])
            let callback = try await HeadlessBrowser().redirectLocation(of: request.url)
            let credentials = try await client.exchange(request.validateCallback(callback))
            let refresh = try #require(credentials.token.refreshToken)
            let response = try await api.send(authorization: "Bearer \(refresh)")
            #expect(response.status == 401)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(error: "invalid_token", description: "the token is not an access token (token_type)"))
        }
    }

    @Test("a DPoP-bound opaque token sent as Bearer is invalid_token")
    func boundAsBearer() async throws {
        try await TestAPI.with { api in
            let client = try await Self.client(api, dpop: DPoPKey())
            let credentials = try await client.clientCredentials(scopes: ["read", "write"])
            let response = try await api.send(authorization: "Bearer \(credentials.accessToken)")
            #expect(response.status == 401)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(
                        error: "invalid_token", description: "the access token is DPoP-bound: send it with the DPoP scheme and a proof"))
        }
    }

    @Test("an introspection answer is reused until its maximum age: a token revoked meanwhile passes while cached, not after")
    func cache() async throws {
        for (maximumAge, statusAfterRevocation) in [(300.0, 200), (0.0, 401)] {
            try await TestAPI.with(TestAPI.Changes(introspectionCacheMaximumAge: maximumAge)) { api in
                let client = try await Self.client(api)
                let token = try await client.clientCredentials(scopes: ["read", "write"]).accessToken
                #expect(try await api.send(authorization: "Bearer \(token)").status == 200)
                try await client.revoke(token, hint: .accessToken)
                #expect(try await api.send(authorization: "Bearer \(token)").status == statusAfterRevocation, "max age \(maximumAge)")
            }
        }
    }

    @Test("without introspection credentials an opaque token is refused")
    func noIntrospection() async throws {
        try await TestAPI.with(TestAPI.Changes(introspects: false)) { api in
            let response = try await api.send(authorization: "Bearer opaque-token")
            #expect(response.status == 401)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(
                        error: "invalid_token", description: "the access token is not a JWT and this API does not introspect tokens"))
        }
    }

    @Test("an introspection endpoint given in the options is used only over https (or loopback http): the API's secret goes there")
    func introspectionEndpointOption() async throws {
        try await TestAPI.with { api in
            var options = ProtectedResourceOptions()
            options.introspectionClient = (api.resourceURL.absoluteString, TestAPI.apiSecret)
            options.introspectionEndpoint = URL(string: "http://introspection.example/introspect")!
            let error = await #expect(throws: AuthFlowError.self) {
                try await ProtectedResource.discover(issuer: api.provider.issuer, resource: api.resourceURL, options: options)
            }
            #expect(error?.category == .configuration)
            #expect(error?.message == "introspection_endpoint must use https (http is allowed only for loopback hosts)")
            // The provider's own endpoint, named in the options instead of read from the metadata.
            options.introspectionEndpoint = api.provider.issuer.url.appending(path: "introspect")
            let resource = try await ProtectedResource.discover(issuer: api.provider.issuer, resource: api.resourceURL, options: options)
            let missing = await #expect(throws: AccessTokenRefusal.self) {
                try await resource.verify(authorization: "Bearer not-issued", method: "GET", path: "/api/items")
            }
            #expect(missing?.errorDescription == "the token is not active")
        }
    }
}
#endif
