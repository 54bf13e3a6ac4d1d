import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct JWKSTests {
    let now = TestIDP.now

    func token(_ key: SigningKey, kid: String?, alg: String = "ES256") throws -> String {
        try jws(TestIDP.claims(), key: key, alg: alg, kid: kid)
    }

    func verify(_ token: String, _ idp: TestIDP) async throws -> IDTokenClaims {
        try await idp.verifier().verify(token, rules: TestIDP.rules(), accessToken: nil, now: now)
    }

    // MARK: Parsing

    @Test func unusableKeysAreSkippedWithoutFailingTheSet() async throws {
        let keys: [[String: JSONMemberValue]] = [
            SigningKey.ec256b.jwk(kid: "enc", extra: ["use": .string("enc")]),
            SigningKey.hmac("secret").jwk(kid: "oct"),
            ["kty": .string("EC"), "crv": .string("P-521"), "kid": .string("p521"), "x": .string("AAAA"), "y": .string("AAAA")],
            [
                "kty": .string("EC"), "crv": .string("secp256k1"), "kid": .string("k1"), "x": .string(String(repeating: "A", count: 43)),
                "y": .string(String(repeating: "A", count: 43)),
            ],
            ["kty": .string("RSA"), "kid": .string("broken"), "n": .string("!!"), "e": .string("AQAB")],
            ["kid": .string("nokty")],
            SigningKey.ec256b.jwk(kid: "verify-only-not", extra: ["key_ops": .array([.string("encrypt")])]),
            SigningKey.ec256.jwk(kid: "good", extra: ["use": .string("sig")]),
        ]
        let set = try JSONWebKeySet(json: json(jwksJSON(keys)))
        #expect(set.keys.map(\.keyID) == ["good"])
        #expect(set.keys.first?.keyType == "EC")

        let idp = try TestIDP(keys: keys)
        _ = try await verify(try token(.ec256, kid: "good"), idp)
        // A token naming a skipped key finds nothing.
        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(try token(.ec256b, kid: "enc"), idp) }
    }

    @Test func everySupportedKeyTypeParses() throws {
        let set = try JSONWebKeySet(
            json: json(
                jwksJSON([
                    SigningKey.rsa2048.jwk(kid: "r", extra: ["alg": .string("RS256")]), SigningKey.ec256.jwk(kid: "e"),
                    SigningKey.ec384.jwk(kid: "e3"), SigningKey.ed.jwk(kid: "o"),
                ])))
        #expect(set.keys.map(\.keyID) == ["r", "e", "e3", "o"])
        #expect(set.keys.map(\.keyType) == ["RSA", "EC", "EC", "OKP"])
        #expect(set.keys.first?.algorithm == "RS256")
        #expect(set.candidates(keyID: nil, algorithm: .es256).map(\.keyID) == ["e"])
        #expect(set.candidates(keyID: nil, algorithm: .rs256).map(\.keyID) == ["r"])
        #expect(set.candidates(keyID: nil, algorithm: .ps256).isEmpty)
        #expect(set.candidates(keyID: "o", algorithm: .edDSA).map(\.keyID) == ["o"])
        #expect(set.candidates(keyID: "e", algorithm: .es384).isEmpty)
    }

    /// A key's `alg` narrows what it verifies; an `alg` of another key type,
    /// or one AuthFlow does not know, leaves it fitting nothing.
    @Test func keyAlgorithmRestrictsTheKey() throws {
        let set = try JSONWebKeySet(
            json: json(
                jwksJSON([
                    SigningKey.rsa2048.jwk(kid: "ps", extra: ["alg": .string("PS384")]),
                    SigningKey.rsa2048.jwk(kid: "odd", extra: ["alg": .string("RS1")]),
                    SigningKey.rsa2048.jwk(kid: "ec-alg", extra: ["alg": .string("ES256")]),
                    SigningKey.ec256.jwk(kid: "rs-alg", extra: ["alg": .string("RS256")]),
                ])))
        #expect(set.keys.map(\.keyID) == ["ps", "odd", "ec-alg", "rs-alg"])
        for algorithm in JWSAlgorithm.allCases {
            let fitting = set.keys.filter { $0.fits(algorithm) }.map(\.keyID)
            #expect(fitting == (algorithm == .ps384 ? ["ps"] : []), "\(algorithm.name)")
        }
    }

    @Test(arguments: ["[]", "{}", #"{"keys":{}}"#, "nope"])
    func setWithoutKeysArrayIsInvalidResponse(_ text: String) {
        expectError(.invalidResponse) { try JSONWebKeySet(json: json(text)) }
    }

    // MARK: Cache

    @Test func insecureJWKSURIIsConfiguration() {
        expectError(.configuration) { try KeySetCache(jwksURI: url("http://idp.example/jwks"), transport: ScriptedTransport.unused()) }
    }

    @Test func setIsFetchedOnceAndCached() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        for _ in 0..<3 { _ = try await verify(try token(.ec256, kid: "ec1"), idp) }
        #expect(idp.transport.urls == [TestIDP.jwksURI])
        let request = try #require(idp.transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.header("Accept") == "application/json")
    }

    @Test func concurrentVerificationsShareOneFetch() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        let token = try token(.ec256, kid: "ec1")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await verify(token, idp) } }
            try await group.waitForAll()
        }
        #expect(idp.transport.requests.count == 1)
    }

    @Test func fetchFailureIsInvalidResponse() async throws {
        let transport = ScriptedTransport { _ in HTTPTransportResponse(status: 500) }
        let cache = try KeySetCache(jwksURI: url(TestIDP.jwksURI), transport: transport)
        await expectError(.invalidResponse) { try await cache.keySet() }
        let broken = try KeySetCache(jwksURI: url(TestIDP.jwksURI), transport: ScriptedTransport { _ in .json("[1]") })
        await expectError(.invalidResponse) { try await broken.keySet() }
    }

    /// Cold cache: the set fetched for this very token lacks its key; the
    /// unknown kid still causes one refetch (ordinary fetches do not count
    /// toward the cooldown), and no more.
    @Test func unknownKidOnColdCacheRefetchesOnce() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(try token(.ec256, kid: "nope"), idp) }
        #expect(idp.transport.requests.count == 2)
        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(try token(.ec256, kid: "nope-2"), idp) }
        #expect(idp.transport.requests.count == 2, "a second unknown kid within the cooldown does not refetch")
    }

    @Test func unknownKidRefetchesOnceThenIsRateLimited() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")], minimumRefetchInterval: 3)
        _ = try await verify(try token(.ec256, kid: "ec1"), idp)
        #expect(idp.transport.requests.count == 1)
        try await Task.sleep(nanoseconds: 3_100_000_000)

        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(try token(.ec256b, kid: "unknown-1"), idp) }
        #expect(idp.transport.requests.count == 2)
        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(try token(.ec256b, kid: "unknown-2"), idp) }
        #expect(idp.transport.requests.count == 2)
        // Known keys still verify from the cache.
        _ = try await verify(try token(.ec256, kid: "ec1"), idp)
        #expect(idp.transport.requests.count == 2)
    }

    @Test func rotatedKeyVerifiesAfterRefetch() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "old")], minimumRefetchInterval: 3)
        _ = try await verify(try token(.ec256, kid: "old"), idp)
        idp.setKeys([SigningKey.ec256b.jwk(kid: "new")])
        try await Task.sleep(nanoseconds: 3_100_000_000)

        let claims = try await verify(try token(.ec256b, kid: "new"), idp)
        #expect(claims.subject == "user-1")
        #expect(idp.transport.requests.count == 2)
        // The old key is gone from the refreshed set.
        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(try token(.ec256, kid: "old"), idp) }
        #expect(idp.transport.requests.count == 2)
    }

    @Test(
        arguments: [
            (nil, 3600.0), ("max-age=120", 120), ("public, max-age=600", 600), ("max-age=5", 60), ("max-age=999999", 86_400),
            ("no-store", 60), ("no-cache", 60), ("max-age=\"300\"", 300), ("private", 3600), ("max-age=abc", 3600),
        ] as [(String?, Double)])
    func cacheControlMaxAge(_ header: String?, _ expected: Double) {
        #expect(KeySetCache.maxAge(header) == expected)
    }
}

extension JSONWebKeySet {
    /// The keys the verifier would try for a token with this `kid` (nil: any) and algorithm.
    fileprivate func candidates(keyID: String?, algorithm: JWSAlgorithm) -> [JSONWebKey] {
        keys.filter { $0.fits(keyID: keyID, algorithm: algorithm) }
    }
}
