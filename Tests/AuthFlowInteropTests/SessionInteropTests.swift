import AuthFlow
import Foundation
import Testing

extension InteropSuites {
    /// `AuthSession` against servers that rotate refresh tokens (DOT also revokes
    /// the family on replay): a thousand concurrent callers after expiry cause
    /// one refresh, and the session keeps working.
    @Suite("Sessions against real servers")
    struct SessionInteropTests {
        @Test("1 000 concurrent callers on an expired session: one refresh", arguments: ["dot", "authlib"])
        func thousandCallers(server name: String) async throws {
            let flow = try InteropFlow(name)
            let client = try await flow.client()
            let (_, grant) = try await flow.authorize(client)
            var credentials = try await client.exchange(grant)
            let firstRefreshToken = try #require(credentials.token.refreshToken)
            credentials.token.expiresAt = Date(timeIntervalSinceNow: -5)
            let store = MemoryCredentialStore()
            let session = AuthSession(client: client, store: store, credentials: credentials)

            try await Task.sleep(nanoseconds: 300_000_000) // let the server flush its log
            let before = flow.server.tokenRequests()
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<1_000 { group.addTask { try await session.freshAccessToken() } }
                var tokens: Set<String> = []
                for try await token in group { tokens.insert(token) }
                return tokens
            }
            #expect(tokens.count == 1, "every caller got the same token")
            #expect(tokens.first != credentials.accessToken)
            try await Task.sleep(nanoseconds: 500_000_000)
            #expect(flow.server.tokenRequests() - before == 1, "the server saw exactly one refresh")

            let stored = try #require(try await store.load()?.credentials)
            #expect(stored.accessToken == tokens.first)
            #expect(stored.token.refreshToken != firstRefreshToken, "the rotated refresh token was stored")
            #expect(stored.subject == credentials.subject, "the refreshed ID token keeps sub")

            // Still works: the token is accepted by the provider, and no further refresh happens.
            let info = try await client.userInfo(accessToken: try await session.freshAccessToken(), expectedSubject: credentials.subject)
            #expect(info.subject == credentials.subject)
            #expect(flow.server.tokenRequests() - before == 1)
        }
    }
}
