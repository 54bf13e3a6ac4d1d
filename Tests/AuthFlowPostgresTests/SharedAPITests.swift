#if PostgreSQL && Hummingbird && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowHummingbird
import AuthFlowPostgres
import AuthFlowProvider
import Foundation
import PostgresNIO
import Testing

/// Two instances of one API, each with its own PostgreSQL pool, sharing what
/// must be shared: the DPoP proofs already used, and the sessions that a
/// back-channel logout ends.
@Suite("API instances sharing PostgreSQL", .enabled(if: TestDatabase.available, TestDatabase.skipReason))
struct SharedAPITests {
    /// Runs `body` with the provider and two API instances on one table, each with a pool of its own.
    static func withTwoInstances(
        _ body: (ProviderSession, SharedAPIInstance, SharedAPIInstance) async throws -> Void
    ) async throws {
        let provider = try await EmbeddedProvider.start(SharedAPIKeys.configuration)
        do {
            let session = ProviderSession(provider: provider, counter: RefreshCounter())
            let name = TestDatabase.freshTable()
            try await TestDatabase.withClient { poolA in
                try await TestDatabase.withClient { poolB in
                    try await SharedAPIInstance.with(issuer: provider.issuer, client: poolA, tableName: name) { first in
                        try await SharedAPIInstance.with(issuer: provider.issuer, client: poolB, tableName: name) { second in
                            try await body(session, first, second)
                        }
                    }
                }
            }
            await provider.stop()
        } catch {
            await provider.stop()
            throw error
        }
    }

    /// Every `WWW-Authenticate` value of `response`, joined as one field would be.
    static func challenges(_ response: HTTPTransportResponse) -> String {
        response.headers.filter { $0.name.caseInsensitiveCompare("WWW-Authenticate") == .orderedSame }.map(\.value).joined(separator: ", ")
    }

    @Test("a DPoP proof accepted by one instance is refused by the other as a replay (401 invalid_dpop_proof)")
    func proofReplayedOnAnotherInstance() async throws {
        try await Self.withTwoInstances { provider, first, second in
            let key = DPoPKey()
            let token = try SharedAPIKeys.accessToken(issuer: provider.provider.issuer, boundTo: key)
            let proof = try key.proof(method: "GET", url: SharedAPIInstance.publicItems, accessToken: token)

            let accepted = try await first.get(authorization: "DPoP " + token, dpop: [proof])
            #expect(accepted.status == 200)
            #expect(String(decoding: accepted.body, as: UTF8.self) == "demo")

            let replayed = try await second.get(authorization: "DPoP " + token, dpop: [proof])
            #expect(replayed.status == 401)
            let metadata = #"resource_metadata="https://orders.example/.well-known/oauth-protected-resource/api""#
            #expect(
                Self.challenges(replayed)
                    == #"Bearer \#(metadata), DPoP error="invalid_dpop_proof", "#
                    + #"error_description="the DPoP proof was already used (jti replay)", algs="ES256 EdDSA PS256 RS256", \#(metadata)"#)
            // And back on the first one.
            #expect(try await first.get(authorization: "DPoP " + token, dpop: [proof]).status == 401)

            // A fresh proof of the same key is accepted by either.
            let fresh = try key.proof(method: "GET", url: SharedAPIInstance.publicItems, accessToken: token)
            #expect(try await second.get(authorization: "DPoP " + token, dpop: [fresh]).status == 200)
            // The table holds hashes of the proofs' identifiers, in its _seen table.
            let seen = try await TestDatabase.texts(first.table.client, "SELECT count(*)::text FROM \(unescaped: first.table.name)_seen")
            #expect(seen == ["2"])
        }
    }

    @Test("a verified back-channel logout at one instance ends the PostgreSQL session; the other instance's refresh finds it signed out")
    func backChannelLogoutEndsSessions() async throws {
        try await Self.withTwoInstances { provider, first, second in
            let issuer = provider.provider.issuer
            let client = try await provider.client()
            let credentials = try await provider.signIn(client)
            #expect(credentials.idToken?.subject == "demo")
            _ = try await AuthSession.start(client: client, credentials: credentials, store: try first.table.store(sessionID: "user-1"))
            // The other instance has the session open, as it serves the user's next request.
            let onSecond = try #require(
                try await AuthSession.restore(from: try second.table.store(sessionID: "user-1"), transport: provider.counter))

            // Tokens that break a rule end nothing.
            let refused: [(String, String, String)] = [
                (
                    "bad signature",
                    try SharedAPIKeys.sign(
                        SharedAPIKeys.logoutClaims(issuer: issuer, subject: "demo"), typ: "logout+jwt", key: SharedAPIKeys.stranger),
                    "the token's signature is invalid"
                ),
                (
                    "nonce",
                    try SharedAPIKeys.sign(
                        SharedAPIKeys.logoutClaims(issuer: issuer, subject: "demo", ["nonce": .string("n-1")]), typ: nil),
                    "a logout token must not carry a nonce"
                ),
                (
                    "no events",
                    try SharedAPIKeys.sign(SharedAPIKeys.logoutClaims(issuer: issuer, subject: "demo", ["events": nil]), typ: nil),
                    "the logout token has no events member"
                ),
            ]
            for (name, token, description) in refused {
                let response = try await first.postLogout(token)
                #expect(response.status == 400, "\(name)")
                #expect(SharedAPIInstance.errorDescription(response) == description, "\(name)")
            }
            #expect(try await second.table.store(sessionID: "user-1").load() != nil)

            let logout = try SharedAPIKeys.sign(SharedAPIKeys.logoutClaims(issuer: issuer, subject: "demo"), typ: "logout+jwt")
            let accepted = try await first.postLogout(logout)
            #expect(accepted.status == 200)
            // The same token at the other instance is a replay (one cache for both).
            let replayed = try await second.postLogout(logout)
            #expect(replayed.status == 400)
            #expect(SharedAPIInstance.errorDescription(replayed) == "the logout token was already used (jti replay)")

            let ended = await #expect(throws: AuthFlowError.self) { try await onSecond.refreshNow() }
            #expect(ended?.category == .reauthenticationRequired && ended?.message == "the session was signed out")
            #expect(provider.counter.refreshes == 0, "no refresh token is sent for an ended session")
            #expect(try await AuthSession.restore(from: try first.table.store(sessionID: "user-1"), transport: provider.counter) == nil)
            let reason = try await TestDatabase.texts(
                first.table.client, "SELECT coalesce(ended_reason, '-') FROM \(unescaped: first.table.name) WHERE session_id = 'user-1'")
            #expect(reason == ["backchannel_logout"])
        }
    }
}
#endif
