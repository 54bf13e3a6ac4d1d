#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

@Suite("Concurrent use")
struct ConcurrencyTests {
    @Test("two concurrent redemptions of one code: exactly one wins, and its tokens are then revoked")
    func concurrentRedemption() async throws {
        try await Fixture.with { provider in
            let client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let (_, grant) = try await authorize(client)
            async let first = Result(catching: { try await client.exchange(grant) })
            async let second = Result(catching: { try await client.exchange(grant) })
            let results = await [first, second]
            let winners = results.compactMap { try? $0.get() }
            #expect(winners.count == 1)
            let loser = results.compactMap { result -> AuthFlowError? in
                if case .failure(let error) = result { return error as? AuthFlowError } else { return nil }
            }
            #expect(loser.first?.oauth?.error == "invalid_grant")
            let winner = try #require(winners.first)
            #expect(try await Wire(provider: provider).introspect(winner.accessToken)["active"] == .bool(false))
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
#endif
