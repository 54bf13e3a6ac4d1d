import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Key rotation against a real JWKS endpoint on loopback.
@Suite("Key rotation")
struct KeyRotationTests {
    @Test("a JWK Set that lacks the signing key at first is fetched again once, and the token verifies")
    func firstSetLacksTheKey() async throws {
        let fetches = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/jwks" else { return LocalHTTPServer.Response(status: 404) }
            // The first answer is the set from before the rotation.
            let first = fetches.withLock {
                $0 += 1
                return $0 == 1
            }
            return .json(jwksJSON([first ? SigningKey.ec256b.jwk(kid: "old") : SigningKey.ec256.jwk(kid: "new")]))
        }
        defer { server.stop() }
        let cache = try KeySetCache(jwksURI: server.url("/jwks"), transport: URLSessionTransport(), timeout: 5)
        let verifier = IDTokenVerifier(keys: cache, clientSecret: nil, acceptedAlgorithms: nil, providerAlgorithms: nil)
        let token = try jws(TestIDP.claims(), key: .ec256, alg: "ES256", kid: "new")
        let claims = try await verifier.verify(token, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
        #expect(claims.subject == "user-1")
        #expect(fetches.current == 2)

        // A token signed with another unknown key right afterwards: within the cooldown, no third fetch.
        let other = try jws(TestIDP.claims(), key: .ec384, alg: "ES384", kid: "other")
        await expectError(.idTokenInvalid, reason: .keyNotFound) {
            try await verifier.verify(other, rules: TestIDP.rules(), accessToken: nil, now: TestIDP.now)
        }
        #expect(fetches.current == 2)
    }

    @Test("ordinary fetches do not start the cooldown; unknown-key refetches do")
    func cooldownCountsUnknownKeyRefetchesOnly() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")], minimumRefetchInterval: 3600)
        _ = try await idp.cache.keySet()
        #expect(try await idp.cache.refetchForUnknownKey() != nil, "right after an ordinary fetch, an unknown kid refetches")
        #expect(try await idp.cache.refetchForUnknownKey() == nil, "a second unknown kid within the cooldown does not")
        #expect(idp.transport.requests.count == 2)
    }
}
