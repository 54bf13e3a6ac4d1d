import AuthFlow
import Foundation
import Testing

/// A provider that ignores the resource asked for and issues a token for its
/// default audience (Auth0 does so for an audience outside the application's
/// refresh token policies): the token is neither kept nor sent, and the
/// refresh token rotated while issuing it is kept. A real server of ours
/// honours `resource`, so the answer is scripted.
@Suite("Tokens per resource: the audience check")
struct ResourceTokenAudienceTests {
    static let billing = try! ResourceIdentifier(URL(string: "https://api.example.com/billing")!)

    /// A JWT-shaped access token (unsigned: a client reads `aud`, it never verifies an access token).
    static func accessToken(audience: String) -> String {
        func part(_ text: String) -> String { Base64URL.encode(Data(text.utf8)) }
        return part(#"{"alg":"RS256","typ":"at+jwt"}"#) + "." + part(#"{"aud":"\#(audience)","sub":"demo"}"#) + ".c2ln"
    }

    static func session(answering access: String, forms: Locked<[String]>) throws -> (AuthSession, MemoryCredentialStore) {
        let transport = ScriptedTransport { request in
            forms.withLock { $0.append(String(decoding: request.body ?? Data(), as: UTF8.self)) }
            return SessionTests.refreshed(access, refresh: "RT-rotated")
        }
        let client = try OAuthClient(metadata: metadata(), clientID: "app", transport: transport)
        let store = MemoryCredentialStore()
        return (AuthSession(client: client, store: store, credentials: try SessionTests.credentials(expiresIn: 3600)), store)
    }

    @Test("a token for the default audience is refused with its audience named; the rotated refresh token is kept")
    func defaultAudienceIsRefused() async throws {
        let forms = Locked<[String]>([])
        let (session, store) = try Self.session(answering: Self.accessToken(audience: "https://default.example.com"), forms: forms)
        await #expect {
            try await session.resourceToken(for: Self.billing, using: .refreshTokenNamingAudience())
        } throws: { error in
            let error = error as? AuthFlowError
            return error?.category == .invalidResponse
                && error?.message
                    == "the provider issued a token for https://default.example.com, not for https://api.example.com/billing: it is neither kept nor sent"
        }
        // Asked with `audience` (Auth0), not `resource`.
        #expect(forms.current.count == 1)
        #expect(forms.current[0].contains("audience=https%3A%2F%2Fapi.example.com%2Fbilling"))
        #expect(!forms.current[0].contains("resource="))
        let stored = try #require(try await store.load())
        #expect(stored.credentials.token.refreshToken == "RT-rotated")
        #expect(stored.credentials.accessToken == "AT-old")
        #expect(stored.resourceTokens.isEmpty)
        #expect(session.heldResourceTokens.isEmpty)
        #expect(try await session.currentCredentials?.token.refreshToken == "RT-rotated")
    }

    @Test("a token whose aud is the resource is kept; an opaque one, which a client cannot read, too")
    func matchingAudienceIsKept() async throws {
        let forms = Locked<[String]>([])
        let jwt = Self.accessToken(audience: Self.billing.description)
        let (session, _) = try Self.session(answering: jwt, forms: forms)
        #expect(try await session.freshAccessToken(for: Self.billing) == jwt)
        #expect(forms.current[0].contains("resource=https%3A%2F%2Fapi.example.com%2Fbilling"))
        let (opaque, _) = try Self.session(answering: "opaque-token", forms: forms)
        #expect(try await opaque.freshAccessToken(for: Self.billing) == "opaque-token")
    }

    @Test("a kept token is renewed by the grant named in it")
    func grantsByName() {
        #expect(ResourceTokenGrant(named: "refresh_token")?.name == "refresh_token")
        #expect(ResourceTokenGrant(named: "refresh_token_audience")?.name == "refresh_token_audience")
        #expect(ResourceTokenGrant(named: "token_exchange", scopes: ["a"])?.scopes == ["a"])
        #expect(ResourceTokenGrant(named: "identity_assertion") == nil)
        #expect(ResourceTokenGrant(named: "session") == nil)
    }
}
