import AuthFlowTestSupport
import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import AuthFlow

@Suite struct IDTokenTests {
    let now = TestIDP.now

    /// A provider with one key of each kind.
    func provider(minimumRefetchInterval: TimeInterval = 30) throws -> TestIDP {
        try TestIDP(
            keys: [
                SigningKey.rsa2048.jwk(kid: "rsa1"),
                SigningKey.ec256.jwk(kid: "ec1"),
                SigningKey.ec384.jwk(kid: "ec384"),
                SigningKey.ed.jwk(kid: "ed1"),
            ], minimumRefetchInterval: minimumRefetchInterval)
    }

    func verify(
        _ token: String, with idp: TestIDP, verifier: IDTokenVerifier? = nil, rules: IDTokenRules = TestIDP.rules(),
        accessToken: String? = nil
    ) async throws -> IDTokenClaims {
        try await (verifier ?? idp.verifier()).verify(token, rules: rules, accessToken: accessToken, now: now)
    }

    func ecToken(_ changes: [String: JSONMemberValue?] = [:]) throws -> String {
        try jws(TestIDP.claims(changes), key: .ec256, alg: "ES256", kid: "ec1")
    }

    // MARK: Algorithms that verify

    @Test(arguments: [
        ("RS256", "rsa1"), ("RS384", "rsa1"), ("RS512", "rsa1"), ("PS256", "rsa1"), ("PS384", "rsa1"),
        ("ES256", "ec1"), ("ES384", "ec384"), ("EdDSA", "ed1"),
    ])
    func validTokenVerifies(_ alg: String, _ kid: String) async throws {
        let idp = try provider()
        let key: SigningKey =
            switch kid {
            case "rsa1": .rsa2048
            case "ec1": .ec256
            case "ec384": .ec384
            default: .ed
            }
        let claims = try await verify(try jws(TestIDP.claims(), key: key, alg: alg, kid: kid), with: idp)
        #expect(claims.subject == "user-1")
        #expect(claims.issuer == TestIDP.issuer)
        #expect(claims.audience == ["app"])
        #expect(claims.nonce == "N-1")
        #expect(claims.expiresAt == now.addingTimeInterval(300))
        #expect(claims.issuedAt == now.addingTimeInterval(-10))
        #expect(idp.transport.urls == [TestIDP.jwksURI])
    }

    @Test func hs256WithClientSecretVerifies() async throws {
        let idp = try provider()
        let token = try jws(TestIDP.claims(), key: .hmac("client-secret"), alg: "HS256", kid: nil)
        let claims = try await verify(token, with: idp, verifier: idp.verifier(secret: "client-secret"))
        #expect(claims.subject == "user-1")
        #expect(idp.transport.requests.isEmpty)
        await expectError(.idTokenInvalid, reason: .signature) {
            try await verify(token, with: idp, verifier: idp.verifier(secret: "another-secret"))
        }
    }

    @Test func claimsAreTyped() async throws {
        let idp = try provider()
        let token = try ecToken([
            "aud": .array([.string("app")]), "auth_time": .number(now.timeIntervalSince1970 - 100), "azp": .string("app"),
            "acr": .string("urn:loa:2"), "amr": .array([.string("pwd"), .string("otp")]), "name": .string("Ann"),
            "email": .string("ann@example.com"), "preferred_username": .string("ann"), "custom": .object(["k": .bool(true)]),
        ])
        let claims = try await verify(token, with: idp)
        #expect(claims.audience == ["app"])
        #expect(claims.authTime == now.addingTimeInterval(-100))
        #expect(claims.authorizedParty == "app")
        #expect(claims.authenticationContextClass == "urn:loa:2")
        #expect(claims.authenticationMethods == ["pwd", "otp"])
        #expect(claims.name == "Ann")
        #expect(claims.email == "ann@example.com")
        #expect(claims.preferredUsername == "ann")
        #expect(claims.all["custom"] == .object(["k": .bool(true)]))
    }

    // MARK: Malformed tokens

    @Test(arguments: ["", "a.b", "a.b.c.d", "abc", "..", "e30.e30", "e30.e30.e30.e30"])
    func wrongSegmentCountOrEmptyIsMalformed(_ token: String) async throws {
        let idp = try provider()
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
        #expect(idp.transport.requests.isEmpty)
    }

    @Test func badBase64IsMalformed() async throws {
        let idp = try provider()
        let good = try ecToken().split(separator: ".").map(String.init)
        for token in [
            "!!!.\(good[1]).\(good[2])", "\(good[0]).\(good[1])=.\(good[2])", "\(good[0]).\(good[1]).\(good[2])+",
            "\(good[0]).\(good[1]).A",
        ] {
            await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
        }
    }

    @Test(arguments: ["[1]", "\"str\"", "null", "{", "not json"])
    func headerNotAnObjectIsMalformed(_ header: String) async throws {
        let idp = try provider()
        let token = try jws(headerJSON: header, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    @Test func payloadNotAnObjectIsMalformed() async throws {
        let idp = try provider()
        let token = try jws(headerJSON: #"{"alg":"ES256","kid":"ec1"}"#, payloadJSON: "[]", key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    @Test func duplicateClaimNamesAreMalformed() async throws {
        let idp = try provider()
        var payload = jsonText(TestIDP.claims())
        payload.removeLast()
        payload += #","sub":"mallory"}"#
        let token = try jws(headerJSON: #"{"alg":"ES256","kid":"ec1"}"#, payloadJSON: payload, key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    @Test func duplicateHeaderNamesAreMalformed() async throws {
        let idp = try provider()
        let token = try jws(
            headerJSON: #"{"alg":"ES256","kid":"ec1","alg":"ES256"}"#, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    /// The same member name spelled with a JSON escape is still a duplicate.
    @Test func duplicateClaimNamesWithEscapesAreMalformed() async throws {
        let idp = try provider()
        var payload = jsonText(TestIDP.claims())
        payload.removeLast()
        payload += #","s\u0075b":"mallory"}"#
        let token = try jws(headerJSON: #"{"alg":"ES256","kid":"ec1"}"#, payloadJSON: payload, key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    @Test func duplicateNamesInNestedObjectsAndArraysAreFound() {
        func refusedForDuplicate(_ text: String) -> Bool {
            do throws(JSONParser.Failure) {
                _ = try JSONParser.parse(Array(text.utf8))
                return false
            } catch {
                if case .duplicateName = error.kind { return true }
                return false
            }
        }
        #expect(refusedForDuplicate(#"{"a":{"b":1,"b":2}}"#))
        #expect(refusedForDuplicate(#"{"a":[{"b":1,"b":2}]}"#))
        #expect(!refusedForDuplicate(#"{"a":{"b":1},"c":{"b":2},"d":["a","a"]}"#))
        #expect(!refusedForDuplicate(#"{"a":"x\"a","b":"a"}"#))
    }

    @Test func missingAlgIsMalformed() async throws {
        let idp = try provider()
        let token = try jws(headerJSON: #"{"kid":"ec1"}"#, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    @Test func critHeaderIsMalformed() async throws {
        let idp = try provider()
        let token = try jws(
            TestIDP.claims(), key: .ec256, alg: "ES256", kid: "ec1", header: ["crit": .array([.string("exp")]), "exp": .number(1)])
        await expectError(.idTokenInvalid, reason: .malformed) { try await verify(token, with: idp) }
    }

    // MARK: Algorithm policy

    @Test(arguments: ["none", "None"])
    func algNoneIsRefused(_ alg: String) async throws {
        let idp = try provider()
        let token = b64(#"{"alg":"\#(alg)"}"#) + "." + b64(jsonText(TestIDP.claims())) + "."
        let reason: AuthFlowError.Reason = .algorithm
        await expectError(.idTokenInvalid, reason: reason) { try await verify(token, with: idp) }
        await expectError(.idTokenInvalid, reason: reason) {
            try await verify(token, with: idp, verifier: idp.verifier(secret: "s", accepted: ["none", "ES256"]))
        }
        #expect(idp.transport.requests.isEmpty)
    }

    @Test func hs256ForPublicClientIsAlgorithm() async throws {
        let idp = try provider()
        let token = try jws(TestIDP.claims(), key: .hmac("whatever"), alg: "HS256", kid: nil)
        await expectError(.idTokenInvalid, reason: .algorithm) { try await verify(token, with: idp) }
        await expectError(.idTokenInvalid, reason: .algorithm) {
            try await verify(token, with: idp, verifier: idp.verifier(accepted: ["HS256", "RS256"]))
        }
        #expect(idp.transport.requests.isEmpty)
    }

    /// Key confusion: an HMAC token "keyed" with the RSA public key and naming the RSA kid.
    @Test func hs256WithRSAKeyIDIsRefused() async throws {
        let idp = try provider()
        guard case .rsa(let rsa) = SigningKey.rsa2048 else {
            Issue.record("no RSA key")
            return
        }
        let token = try jws(TestIDP.claims(), key: .hmac(rsa.publicKey.pemRepresentation), alg: "HS256", kid: "rsa1")
        await expectError(.idTokenInvalid, reason: .algorithm) { try await verify(token, with: idp) }
        // A confidential client checks HMAC with its own secret only.
        await expectError(.idTokenInvalid, reason: .signature) {
            try await verify(token, with: idp, verifier: idp.verifier(secret: "client-secret"))
        }
        #expect(idp.transport.requests.isEmpty)
    }

    @Test func algorithmOutsideAcceptedSetIsRefused() async throws {
        let idp = try provider()
        let token = try jws(TestIDP.claims(), key: .rsa2048, alg: "RS256", kid: "rsa1")
        await expectError(.idTokenInvalid, reason: .algorithm) {
            try await verify(token, with: idp, verifier: idp.verifier(accepted: ["ES256"]))
        }
        #expect(idp.transport.requests.isEmpty)
    }

    @Test func unknownAlgorithmIsRefusedEvenIfAccepted() async throws {
        let idp = try provider()
        let token = try jws(headerJSON: #"{"alg":"ES512","kid":"ec1"}"#, payloadJSON: jsonText(TestIDP.claims()), key: .ec256, alg: "ES256")
        await expectError(.idTokenInvalid, reason: .algorithm) {
            try await verify(token, with: idp, verifier: idp.verifier(accepted: ["ES512", "ES256"]))
        }
    }

    @Test func providerListExcludingAlgIsAlgorithm() async throws {
        let idp = try provider()
        let token = try jws(TestIDP.claims(), key: .rsa2048, alg: "RS256", kid: "rsa1")
        await expectError(.idTokenInvalid, reason: .algorithm) {
            try await verify(token, with: idp, verifier: idp.verifier(provider: ["ES256"]))
        }
        _ = try await verify(token, with: idp, verifier: idp.verifier(provider: ["ES256", "RS256"]))
    }

    @Test func rsa1024KeyIsAlgorithm() async throws {
        let idp = try TestIDP(keys: [SigningKey.rsa1024.jwk(kid: "weak")])
        let token = try jws(TestIDP.claims(), key: .rsa1024, alg: "RS256", kid: "weak")
        await expectError(.idTokenInvalid, reason: .algorithm) { try await verify(token, with: idp) }
    }

    @Test func keyWithOtherAlgIsNotUsed() async throws {
        let idp = try TestIDP(keys: [SigningKey.rsa2048.jwk(kid: "rsa1", extra: ["alg": .string("PS256")])])
        let token = try jws(TestIDP.claims(), key: .rsa2048, alg: "RS256", kid: "rsa1")
        await expectError(.idTokenInvalid, reason: .keyNotFound) { try await verify(token, with: idp) }
        _ = try await verify(try jws(TestIDP.claims(), key: .rsa2048, alg: "PS256", kid: "rsa1"), with: idp)
    }

    // MARK: Signatures and keys

    @Test func tamperedPayloadIsSignature() async throws {
        let idp = try provider()
        for (key, alg, kid) in [
            (SigningKey.rsa2048, "RS256", "rsa1"), (.ec256, "ES256", "ec1"), (.ed, "EdDSA", "ed1"), (.rsa2048, "PS256", "rsa1"),
        ] {
            let parts = try jws(TestIDP.claims(), key: key, alg: alg, kid: kid).split(separator: ".").map(String.init)
            let forged = b64(jsonText(TestIDP.claims(["sub": .string("admin")])))
            await expectError(.idTokenInvalid, reason: .signature) { try await verify("\(parts[0]).\(forged).\(parts[2])", with: idp) }
        }
    }

    @Test func signatureByAnotherKeyIsSignature() async throws {
        let idp = try provider()
        let token = try jws(TestIDP.claims(), key: .ec256b, alg: "ES256", kid: "ec1")
        await expectError(.idTokenInvalid, reason: .signature) { try await verify(token, with: idp) }
        // A genuine signature, but over other claims.
        let parts = try ecToken().split(separator: ".").map(String.init)
        let otherSignature = try ecToken(["sub": .string("other")]).split(separator: ".").map(String.init)[2]
        await expectError(.idTokenInvalid, reason: .signature) { try await verify("\(parts[0]).\(parts[1]).\(otherSignature)", with: idp) }
        await expectError(.idTokenInvalid, reason: .signature) { try await verify("\(parts[0]).\(parts[1]).", with: idp) }
    }

    @Test func embeddedJKUAndJWKAreIgnored() async throws {
        let idp = try provider()
        let attackerJWK = SigningKey.ec256b.jwk(kid: "ec1")
        let header: [String: JSONMemberValue] = [
            "jku": .string("https://evil.example/jwks"), "jwk": .object(attackerJWK), "x5u": .string("https://evil.example/x5u"),
        ]
        // Signed by the provider's key: verifies with the JWKS key.
        let legit = try jws(TestIDP.claims(), key: .ec256, alg: "ES256", kid: "ec1", header: header)
        _ = try await verify(legit, with: idp)
        // Signed by the attacker's embedded key: refused.
        let forged = try jws(TestIDP.claims(), key: .ec256b, alg: "ES256", kid: "ec1", header: header)
        await expectError(.idTokenInvalid, reason: .signature) { try await verify(forged, with: idp) }
        #expect(idp.transport.urls == [TestIDP.jwksURI])
    }

    @Test func withoutKidEachCandidateIsTried() async throws {
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: nil), SigningKey.ec256b.jwk(kid: nil)])
        _ = try await verify(try jws(TestIDP.claims(), key: .ec256b, alg: "ES256", kid: nil), with: idp)
        _ = try await verify(try jws(TestIDP.claims(), key: .ec256, alg: "ES256", kid: nil), with: idp)
        #expect(idp.transport.requests.count == 1)
    }

    @Test func noJWKSURIIsKeyNotFound() async throws {
        let verifier = IDTokenVerifier(keys: nil, clientSecret: nil)
        await expectError(.idTokenInvalid, reason: .keyNotFound) {
            try await verifier.verify(try ecToken(), rules: TestIDP.rules(), accessToken: nil, now: now)
        }
    }

    // MARK: Claim rules

    @Test func issuerMismatch() async throws {
        let idp = try provider()
        for iss in ["https://evil.example", "https://idp.example/", "HTTPS://idp.example"] {
            await expectError(.idTokenInvalid, reason: .issuer) { try await verify(try ecToken(["iss": .string(iss)]), with: idp) }
        }
        await expectError(.idTokenInvalid, reason: .issuer) { try await verify(try ecToken(["iss": nil]), with: idp) }
    }

    @Test func audienceWithoutClientIsAudience() async throws {
        let idp = try provider()
        for aud: JSONMemberValue in [.string("other"), .array([.string("other"), .string("third")]), .array([]), .number(1)] {
            await expectError(.idTokenInvalid, reason: .audience) { try await verify(try ecToken(["aud": aud]), with: idp) }
        }
        await expectError(.idTokenInvalid, reason: .audience) { try await verify(try ecToken(["aud": nil]), with: idp) }
    }

    @Test func severalAudiencesNeedAzp() async throws {
        let idp = try provider()
        let two: JSONMemberValue = .array([.string("app"), .string("other")])
        await expectError(.idTokenInvalid, reason: .authorizedParty) { try await verify(try ecToken(["aud": two]), with: idp) }
        let claims = try await verify(try ecToken(["aud": two, "azp": .string("app")]), with: idp)
        #expect(claims.audience == ["app", "other"])
    }

    @Test func azpOfAnotherClientIsAuthorizedParty() async throws {
        let idp = try provider()
        await expectError(.idTokenInvalid, reason: .authorizedParty) { try await verify(try ecToken(["azp": .string("other")]), with: idp) }
    }

    @Test func expiry() async throws {
        let idp = try provider()
        let t = now.timeIntervalSince1970
        await expectError(.idTokenInvalid, reason: .expired) { try await verify(try ecToken(["exp": .number(t - 61)]), with: idp) }
        await expectError(.idTokenInvalid, reason: .expired) { try await verify(try ecToken(["exp": .number(t - 60)]), with: idp) }
        _ = try await verify(try ecToken(["exp": .number(t - 59)]), with: idp)
        _ = try await verify(try ecToken(["exp": .number(t - 30)]), with: idp)
        await expectError(.idTokenInvalid, reason: .expired) {
            try await verify(try ecToken(["exp": .number(t - 1)]), with: idp, rules: TestIDP.rules(leeway: 0))
        }
        await expectError(.idTokenInvalid, reason: .expired) { try await verify(try ecToken(["exp": nil]), with: idp) }
        await expectError(.idTokenInvalid, reason: .expired) { try await verify(try ecToken(["exp": .string("\(t + 100)")]), with: idp) }
    }

    @Test func issuedInTheFuture() async throws {
        let idp = try provider()
        let t = now.timeIntervalSince1970
        await expectError(.idTokenInvalid, reason: .issuedAt) { try await verify(try ecToken(["iat": .number(t + 120)]), with: idp) }
        _ = try await verify(try ecToken(["iat": .number(t + 30)]), with: idp)
        await expectError(.idTokenInvalid, reason: .issuedAt) { try await verify(try ecToken(["iat": nil]), with: idp) }
    }

    @Test func nonce() async throws {
        let idp = try provider()
        await expectError(.idTokenInvalid, reason: .nonce) { try await verify(try ecToken(["nonce": nil]), with: idp) }
        await expectError(.idTokenInvalid, reason: .nonce) { try await verify(try ecToken(["nonce": .string("N-2")]), with: idp) }
        await expectError(.idTokenInvalid, reason: .nonce) { try await verify(try ecToken(["nonce": .string("N-1 ")]), with: idp) }
        // No nonce sent: none checked.
        _ = try await verify(try ecToken(["nonce": nil]), with: idp, rules: TestIDP.rules(nonce: nil))
    }

    @Test func maxAgeAndAuthTime() async throws {
        let idp = try provider()
        let t = now.timeIntervalSince1970
        let rules = TestIDP.rules(maxAge: 300)
        await expectError(.idTokenInvalid, reason: .authTime) {
            try await verify(try ecToken(["auth_time": .number(t - 1000)]), with: idp, rules: rules)
        }
        await expectError(.idTokenInvalid, reason: .authTime) { try await verify(try ecToken(), with: idp, rules: rules) }
        _ = try await verify(try ecToken(["auth_time": .number(t - 350)]), with: idp, rules: rules)
        // Without max_age a stale auth_time is fine.
        _ = try await verify(try ecToken(["auth_time": .number(t - 100_000)]), with: idp)
    }

    @Test func atHash() async throws {
        let idp = try provider()
        let accessToken = "access-token-value"
        let digest = Array(SHA256.hash(data: Array(accessToken.utf8)))
        let right = Data(digest.prefix(16)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        _ = try await verify(try ecToken(["at_hash": .string(right)]), with: idp, accessToken: accessToken)
        await expectError(.idTokenInvalid, reason: .atHash) {
            try await verify(try ecToken(["at_hash": .string(right)]), with: idp, accessToken: accessToken + "x")
        }
        await expectError(.idTokenInvalid, reason: .atHash) {
            try await verify(try ecToken(["at_hash": .string("AAAAAAAAAAAAAAAAAAAAAA")]), with: idp, accessToken: accessToken)
        }
        // Full hash instead of the left half is wrong.
        let full = Data(digest).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        await expectError(.idTokenInvalid, reason: .atHash) {
            try await verify(try ecToken(["at_hash": .string(full)]), with: idp, accessToken: accessToken)
        }
        // No at_hash: nothing to check.
        _ = try await verify(try ecToken(), with: idp, accessToken: accessToken)
    }

    @Test func atHashForES384UsesSHA384() async throws {
        let idp = try provider()
        let accessToken = "tok"
        let right = Base64URL.encode(Array(SHA384.hash(data: Array(accessToken.utf8))).prefix(24))
        let token = try jws(TestIDP.claims(["at_hash": .string(right)]), key: .ec384, alg: "ES384", kid: "ec384")
        _ = try await verify(token, with: idp, accessToken: accessToken)
    }

    @Test func missingOrEmptySubjectIsSubject() async throws {
        let idp = try provider()
        await expectError(.idTokenInvalid, reason: .subject) { try await verify(try ecToken(["sub": nil]), with: idp) }
        await expectError(.idTokenInvalid, reason: .subject) { try await verify(try ecToken(["sub": .string("")]), with: idp) }
        await expectError(.idTokenInvalid, reason: .subject) { try await verify(try ecToken(["sub": .number(5)]), with: idp) }
    }

    @Test func signatureIsCheckedBeforeClaims() async throws {
        let idp = try provider()
        let token = try jws(TestIDP.claims(["iss": .string("https://evil.example")]), key: .ec256b, alg: "ES256", kid: "ec1")
        await expectError(.idTokenInvalid, reason: .signature) { try await verify(token, with: idp) }
    }

    // MARK: Through OAuthClient

    @Test func exchangeVerifiesTheIDToken() async throws {
        let jwks = jwksJSON([SigningKey.ec256.jwk(kid: "ec1")])
        let idToken = try jws(
            TestIDP.claims(["exp": .number(Date().timeIntervalSince1970 + 300), "iat": .number(Date().timeIntervalSince1970)]),
            key: .ec256, alg: "ES256", kid: "ec1")
        let transport = ScriptedTransport { request in
            switch request.url.absoluteString {
            case TestIDP.jwksURI: .json(jwks)
            case "https://idp.example/token": .json(#"{"access_token":"AT","token_type":"Bearer","id_token":"\#(idToken)"}"#)
            default: HTTPTransportResponse(status: 404)
            }
        }
        var provider = metadata()
        provider.jwksURI = url(TestIDP.jwksURI)
        let client = try OAuthClient(metadata: provider, clientID: "app", transport: transport)
        let grant = AuthorizationGrant(
            code: "c", codeVerifier: fixedVerifier, redirectURI: url("http://127.0.0.1:1/cb"), clientID: "app",
            nonce: "N-1", issuer: Issuer(stringLiteral: TestIDP.issuer), requestedScopes: ["openid"])
        let credentials = try await client.exchange(grant)
        #expect(credentials.subject == "user-1")
        #expect(credentials.idToken?.audience == ["app"])

        var wrongNonce = grant
        wrongNonce.nonce = "N-2"
        await expectError(.idTokenInvalid, reason: .nonce) { try await client.exchange(wrongNonce) }
    }
}
