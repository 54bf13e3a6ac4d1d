import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `JWTVerifier`: JWT access tokens (and other JWTs) from a trusted issuer.
@Suite struct JWTVerifierTests {
    static let audience = "https://api.example"
    static let now = TestIDP.now
    static var nowSeconds: Double { now.timeIntervalSince1970 }

    static let standardKeys: [[String: JSONMemberValue]] = [
        SigningKey.rsa2048.jwk(kid: "rsa"), SigningKey.ec256.jwk(kid: "ec"), SigningKey.ed.jwk(kid: "ed"),
        SigningKey.ec384.jwk(kid: "ec384"),
    ]

    /// Access-token claims (RFC 9068 shape), valid at `now`.
    static func claims(_ changes: [String: JSONMemberValue?] = [:]) -> [String: JSONMemberValue] {
        var claims: [String: JSONMemberValue] = [
            "iss": .string(TestIDP.issuer), "sub": .string("user-1"),
            "aud": .array([.string(audience), .string("https://other.example")]),
            "exp": .number(nowSeconds + 300), "iat": .number(nowSeconds - 10), "nbf": .number(nowSeconds - 10),
            "client_id": .string("app"), "scope": .string("read write"), "jti": .string("id-1"),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func token(
        _ changes: [String: JSONMemberValue?] = [:], key: SigningKey = .ec256, alg: String = "ES256", kid: String? = "ec",
        header: [String: JSONMemberValue] = ["typ": .string("at+jwt")]
    ) throws -> String {
        try jws(claims(changes), key: key, alg: alg, kid: kid, header: header)
    }

    // MARK: Success

    @Test func validAccessTokenIsTyped() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let verified = try await issuer.verifier().verify(Self.token(), now: Self.now)
        #expect(verified.algorithm == "ES256")
        #expect(verified.issuer == TestIDP.issuer)
        #expect(verified.subject == "user-1")
        #expect(verified.audience == [Self.audience, "https://other.example"])
        #expect(verified.expiresAt == Date(timeIntervalSince1970: Self.nowSeconds + 300))
        #expect(verified.claims["scope"] == .string("read write"))
        #expect(verified.header["typ"] == .string("at+jwt"))
        #expect(verified.header["kid"] == .string("ec"))
    }

    @Test func audienceAsSingleString() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let verified = try await issuer.verifier().verify(Self.token(["aud": .string(Self.audience)]), now: Self.now)
        #expect(verified.audience == [Self.audience])
    }

    @Test(arguments: [("RS256", SigningKey.rsa2048, "rsa"), ("PS256", SigningKey.rsa2048, "rsa"), ("EdDSA", SigningKey.ed, "ed")])
    func otherDefaultAlgorithmsPass(_ alg: String, _ key: SigningKey, _ kid: String) async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let verified = try await issuer.verifier().verify(Self.token(key: key, alg: alg, kid: kid), now: Self.now)
        #expect(verified.algorithm == alg)
    }

    @Test func tokenWithoutKidFindsTheKeyByAlgorithm() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let verified = try await issuer.verifier().verify(Self.token(key: .ed, alg: "EdDSA", kid: nil), now: Self.now)
        #expect(verified.algorithm == "EdDSA")
    }

    @Test func subjectIsOptional() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let verified = try await issuer.verifier().verify(Self.token(["sub": nil]), now: Self.now)
        #expect(verified.subject == nil)
    }

    // MARK: Claims

    @Test(arguments: ["https://evil.example", "https://idp.example/", "HTTPS://IDP.EXAMPLE"])
    func wrongIssuer(_ iss: String) async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        await expectError(.jwtInvalid, reason: .issuer) {
            try await issuer.verifier().verify(Self.token(["iss": .string(iss)]), now: Self.now)
        }
    }

    @Test func missingIssuer() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        await expectError(.jwtInvalid, reason: .issuer) { try await issuer.verifier().verify(Self.token(["iss": nil]), now: Self.now) }
    }

    @Test(arguments: [
        nil, JSONMemberValue.string("https://other.example"), .array([.string("https://other.example")]), .array([]), .number(1),
    ])
    func audienceMissingOrWithoutUs(_ aud: JSONMemberValue?) async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        await expectError(.jwtInvalid, reason: .audience) { try await issuer.verifier().verify(Self.token(["aud": aud]), now: Self.now) }
    }

    @Test func expiredBeyondLeeway() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(["exp": .number(Self.nowSeconds - 61), "iat": .number(Self.nowSeconds - 600), "nbf": nil])
        await expectError(.jwtInvalid, reason: .expired) { try await issuer.verifier(leeway: 60).verify(token, now: Self.now) }
    }

    @Test func expiredWithinLeewayPasses() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(["exp": .number(Self.nowSeconds - 30), "iat": .number(Self.nowSeconds - 600), "nbf": nil])
        _ = try await issuer.verifier(leeway: 60).verify(token, now: Self.now)
    }

    @Test func expiredWithZeroLeeway() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(["exp": .number(Self.nowSeconds - 1)])
        await expectError(.jwtInvalid, reason: .expired) { try await issuer.verifier(leeway: 0).verify(token, now: Self.now) }
    }

    @Test(arguments: [nil, JSONMemberValue.string("1700000300")])
    func missingOrNonNumericExpIsExpired(_ exp: JSONMemberValue?) async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        await expectError(.jwtInvalid, reason: .expired) { try await issuer.verifier().verify(Self.token(["exp": exp]), now: Self.now) }
    }

    @Test func notBeforeInTheFuture() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(["nbf": .number(Self.nowSeconds + 120)])
        await expectError(.jwtInvalid, reason: .notBefore) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    @Test func notBeforeWithinLeewayPasses() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        _ = try await issuer.verifier().verify(Self.token(["nbf": .number(Self.nowSeconds + 30)]), now: Self.now)
    }

    @Test func issuedInTheFuture() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(["iat": .number(Self.nowSeconds + 120), "nbf": nil])
        await expectError(.jwtInvalid, reason: .issuedAt) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    // MARK: Algorithms and keys

    @Test func hmacTokenIsRefusedEvenWithASecretLookingKey() async throws {
        let secret = "shared-secret-that-is-long-enough-for-hs256"
        let issuer = try TestIDP(keys: Self.standardKeys + [SigningKey.hmac(secret).jwk(kid: "hs")])
        let token = try Self.token(key: .hmac(secret), alg: "HS256", kid: "hs")
        await expectError(.jwtInvalid, reason: .algorithm) { try await issuer.verifier().verify(token, now: Self.now) }
        // Asking for HS256 does not help: symmetric algorithms are removed.
        let asked = issuer.verifier(algorithms: ["HS256", "ES256"])
        #expect(!asked.signature.acceptedAlgorithms.contains("HS256"))
        await expectError(.jwtInvalid, reason: .algorithm) { try await asked.verify(token, now: Self.now) }
    }

    @Test func hmacTokenSignedWithThePublicKeyIsRefused() async throws {
        // Key confusion: HS256 keyed with the RSA modulus published in the JWK Set.
        let issuer = try TestIDP(keys: Self.standardKeys)
        let modulus = SigningKey.rsa2048.jwk(kid: nil)["n"]?.stringValue ?? ""
        let token = try Self.token(key: .hmac(modulus), alg: "HS256", kid: "rsa")
        await expectError(.jwtInvalid, reason: .algorithm) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    @Test func algorithmNotInTheAllowedSet() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let onlyES256 = issuer.verifier(algorithms: ["ES256"])
        await expectError(.jwtInvalid, reason: .algorithm) {
            try await onlyES256.verify(Self.token(key: .rsa2048, alg: "RS256", kid: "rsa"), now: Self.now)
        }
        // ES384 is supported by AuthFlow but not in JWTVerifier's default set.
        await expectError(.jwtInvalid, reason: .algorithm) {
            try await issuer.verifier().verify(Self.token(key: .ec384, alg: "ES384", kid: "ec384"), now: Self.now)
        }
        // Allowed explicitly, it passes.
        let verified = try await issuer.verifier(algorithms: ["ES384"]).verify(
            Self.token(key: .ec384, alg: "ES384", kid: "ec384"), now: Self.now)
        #expect(verified.algorithm == "ES384")
    }

    @Test(arguments: ["none", "None", "ES512", "XYZ"])
    func unknownOrUnsignedAlgorithm(_ alg: String) async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = b64(jsonText(["alg": .string(alg), "kid": .string("ec")])) + "." + b64(jsonText(Self.claims())) + "."
        await expectError(.jwtInvalid, reason: .algorithm) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    @Test func unknownKid() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(key: .ec256b, kid: "nope")
        await expectError(.jwtInvalid, reason: .keyNotFound) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    @Test func knownKidWrongKeyIsSignature() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(key: .ec256b, kid: "ec")
        await expectError(.jwtInvalid, reason: .signature) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    @Test func tamperedClaimsAreSignature() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let parts = try Self.token().split(separator: ".").map(String.init)
        let forged = parts[0] + "." + b64(jsonText(Self.claims(["sub": .string("admin")]))) + "." + parts[2]
        await expectError(.jwtInvalid, reason: .signature) { try await issuer.verifier().verify(forged, now: Self.now) }
    }

    @Test(arguments: ["a.b", "a.b.c.d", "", "!!.??.##"])
    func malformedTokens(_ token: String) async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        await expectError(.jwtInvalid, reason: .malformed) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    @Test func criticalHeaderIsMalformed() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let token = try Self.token(header: ["crit": .array([.string("exp")]), "exp": .number(1)])
        await expectError(.jwtInvalid, reason: .malformed) { try await issuer.verifier().verify(token, now: Self.now) }
    }

    // MARK: Rotation

    @Test func rotatedKeyIsFetchedAndVerifies() async throws {
        let issuer = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "old")], minimumRefetchInterval: 0)
        let verifier = issuer.verifier()
        _ = try await verifier.verify(Self.token(kid: "old"), now: Self.now)
        #expect(issuer.transport.requests.count == 1)

        issuer.setKeys([SigningKey.ec256b.jwk(kid: "new")])
        let verified = try await verifier.verify(Self.token(key: .ec256b, kid: "new"), now: Self.now)
        #expect(verified.header["kid"] == .string("new"))
        #expect(issuer.transport.requests.count == 2)

        // The old key is gone from the refreshed set.
        await expectError(.jwtInvalid, reason: .keyNotFound) { try await verifier.verify(Self.token(kid: "old"), now: Self.now) }
    }

    /// Right after an ordinary fetch, a rotation is still fetched (only
    /// unknown-kid refetches count toward the interval); a second rotation
    /// within the interval is not.
    @Test func rotationWithinTheRefetchIntervalIsFetchedOnce() async throws {
        let issuer = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "old")], minimumRefetchInterval: 3600)
        let verifier = issuer.verifier()
        _ = try await verifier.verify(Self.token(kid: "old"), now: Self.now)
        issuer.setKeys([SigningKey.ec256b.jwk(kid: "new")])
        _ = try await verifier.verify(Self.token(key: .ec256b, kid: "new"), now: Self.now)
        #expect(issuer.transport.requests.count == 2)
        issuer.setKeys([SigningKey.ec256.jwk(kid: "newer")])
        await expectError(.jwtInvalid, reason: .keyNotFound) { try await verifier.verify(Self.token(kid: "newer"), now: Self.now) }
        #expect(issuer.transport.requests.count == 2)
    }

    @Test func repeatedVerificationUsesTheCache() async throws {
        let issuer = try TestIDP(keys: Self.standardKeys)
        let verifier = issuer.verifier()
        for _ in 0..<3 { _ = try await verifier.verify(Self.token(), now: Self.now) }
        #expect(issuer.transport.requests.count == 1)
    }

    // MARK: discover

    @Test func discoverUsesTheIssuersJWKS() async throws {
        let document = """
            {"issuer":"\(TestIDP.issuer)","authorization_endpoint":"\(TestIDP.issuer)/authorize","token_endpoint":"\(TestIDP.issuer)/token",\
            "jwks_uri":"\(TestIDP.jwksURI)","revocation_endpoint":"\(TestIDP.issuer)/revoke"}
            """
        let jwks = jwksJSON(Self.standardKeys)
        let transport = ScriptedTransport(routes: [
            "\(TestIDP.issuer)/.well-known/openid-configuration": .json(document),
            TestIDP.jwksURI: .json(jwks),
        ])
        let verifier = try await JWTVerifier.discover(issuer: Issuer(TestIDP.issuer), audience: Self.audience, transport: transport)
        let verified = try await verifier.verify(Self.token(), now: Self.now)
        #expect(verified.subject == "user-1")
    }

    @Test func discoverWithoutJWKSURIIsConfiguration() async throws {
        let document = """
            {"issuer":"\(TestIDP.issuer)","authorization_endpoint":"\(TestIDP.issuer)/authorize","token_endpoint":"\(TestIDP.issuer)/token",\
            "revocation_endpoint":"\(TestIDP.issuer)/revoke"}
            """
        let transport = ScriptedTransport(routes: ["\(TestIDP.issuer)/.well-known/openid-configuration": .json(document)])
        await expectError(.configuration) {
            try await JWTVerifier.discover(issuer: Issuer(TestIDP.issuer), audience: Self.audience, transport: transport)
        }
    }
}

/// `TestIDP`'s key set behind a `JWTVerifier` instead of an ID-token verifier.
extension TestIDP {
    func verifier(algorithms: Set<String>? = nil, leeway: TimeInterval = 60) -> JWTVerifier {
        if let algorithms {
            return JWTVerifier(
                issuer: Issuer(stringLiteral: TestIDP.issuer), audience: JWTVerifierTests.audience, keys: cache, algorithms: algorithms,
                leeway: leeway)
        }
        return JWTVerifier(issuer: Issuer(stringLiteral: TestIDP.issuer), audience: JWTVerifierTests.audience, keys: cache, leeway: leeway)
    }
}
