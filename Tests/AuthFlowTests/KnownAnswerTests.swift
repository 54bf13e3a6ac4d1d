import AuthFlowTestSupport
import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import AuthFlow

/// Known-answer tests: the example JWSs of the JOSE RFCs, verified with
/// AuthFlow's own JWK parsing and signature verification.
///
/// Vectors (copied from the RFC examples; every one is self-checking, since a
/// single wrong character makes the signature fail):
/// - RFC 7515 Appendix A.2 (RS256) and A.3 (ES256): full `JWSSignatureVerifier.verify` path.
/// - RFC 8037 Appendix A.4/A.5 (EdDSA, Ed25519) and RFC 7520 §4.2 (PS384):
///   their payloads are text, not JSON, so `CompactJWS` refuses them (checked
///   below) and `JWSSignatureVerifier.verify` cannot be reached; the signature is
///   checked instead with the public key AuthFlow parsed from the RFC's JWK,
///   over the signing input built by hand.
/// - RFC 7515 Appendix A.1 (HS256): skipped for `verifyHMAC`, which takes the
///   secret as a String: the JWK's `k` decodes to 64 bytes that are not valid
///   UTF-8 (asserted below). The MAC is checked over `CompactJWS.signingInput`
///   with the raw key bytes instead.
/// - at_hash: OpenID Connect Core 1.0 Appendix A.3 example access token and
///   its `at_hash` (SHA-256); the SHA-384 / SHA-512 values for the same token
///   were computed independently (Python hashlib), not taken from a spec.
@Suite struct KnownAnswerTests {
    // MARK: Vectors

    /// RFC 7515 A.2.1: the JWS Payload shared by A.1, A.2 and A.3, base64url.
    static let rfc7515Payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    /// RFC 7515 A.2.1: the RSA key (public members only).
    static let rfc7515RSAKey = """
        {"kty":"RSA",\
        "n":"ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMs\
        D1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdV\
        MTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",\
        "e":"AQAB"}
        """

    /// RFC 7515 A.2.1: the complete JWS.
    static let rfc7515RS256 =
        "eyJhbGciOiJSUzI1NiJ9." + rfc7515Payload + "."
        + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7"
        + "AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4"
        + "BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K"
        + "0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv"
        + "hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrB"
        + "p0igcN_IoypGlUPQGe77Rw"

    /// RFC 7515 A.3.1: the P-256 key (public members only).
    static let rfc7515ECKey = """
        {"kty":"EC","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
        """

    /// RFC 7515 A.3.1: the complete JWS.
    static let rfc7515ES256 =
        "eyJhbGciOiJFUzI1NiJ9." + rfc7515Payload + "."
        + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSA"
        + "pmWQxfKTUJqPP3-Kg6NU1Q"

    /// RFC 7515 A.1.1: the HMAC key `k` and the complete JWS.
    static let rfc7515HMACKey = "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"
    static let rfc7515HS256 =
        "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9." + rfc7515Payload + "."
        + "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

    /// RFC 8037 A.2: the Ed25519 public key; A.4: signing input and signature.
    static let rfc8037Key = #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}"#
    static let rfc8037SigningInput = "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
    static let rfc8037Signature = "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    /// RFC 7520 §3.4 (Figure 3): the RSA key "bilbo.baggins@hobbiton.example", public members.
    static let rfc7520RSAKey = """
        {"kty":"RSA","kid":"bilbo.baggins@hobbiton.example","use":"sig",\
        "n":"n4EPtAOCc9AlkeQHPzHStgAbgs7bTZLwUBZdR8_KuKPEHLd4rHVTeT-O-XV2jRojdNhxJWTDvNd7nqQ0VEiZQHz_AJmSCpMaJMRBSFKrKb2wqVwGU_NsYOYL-QtiWN2lbzcEe6XC0dApr5ydQLrHqkHHig3RBordaZ6Aj-oBHqFEHYpPe7Tpe-OfVfHd1E6cS6M1FZcD1NNLYD5lFHpPI9bTwJlsde3uhGqC0ZCuEHg8lhzwOHrtIQbS0FVbb9k3-tVTU4fg_3L_vniUFAKwuCLqKnS2BYwdq_mzSnbLY7h_qixoR7jig3__kRhuaxwUkRz5iaiQkqgc5gHdrNP5zw",\
        "e":"AQAB"}
        """

    /// RFC 7520 §4.2.3: the complete PS384 JWS (compact serialization).
    static let rfc7520PS384 =
        "eyJhbGciOiJQUzM4NCIsImtpZCI6ImJpbGJvLmJhZ2dpbnNAaG9iYml0b24uZXhhbXBsZSJ9"
        + ".SXTigJlzIGEgZGFuZ2Vyb3VzIGJ1c2luZXNzLCBGcm9kbywgZ29pbmcgb3V0IHlvdXIgZG9vci4gWW91IHN0ZXAgb250byB0aGUgcm9hZCwgYW5kIGlmIHlvdSBkb24ndCBrZWVwIHlvdXIgZmVldCwgdGhlcmXigJlzIG5vIGtub3dpbmcgd2hlcmUgeW91IG1pZ2h0IGJlIHN3ZXB0IG9mZiB0by4"
        + ".cu22eBqkYDKgIlTpzDXGvaFfz6WGoz7fUDcfT0kkOy42miAh2qyBzk1xEsnk2IpN6-tPid6VrklHkqsGqDqHCdP6O8TTB5dDDItllVo6_1OLPpcbUrhiUSMxbbXUvdvWXzg-UD8biiReQFlfz28zGWVsdiNAUf8ZnyPEgVFn442ZdNqiVJRmBqrYRXe8P_ijQ7p8Vdz0TTrxUeT3lm8d9shnr2lfJT8ImUjvAA2Xez2Mlp8cBE5awDzT0qI0n6uiP1aCN_2_jLAeQTlqRHtfa64QQSUmFAAjVKPbByi7xho0uTOcbH510a6GYmJUAfmWjwZ6oD4ifKo8DYM-X72Eaw"

    // MARK: Helpers

    /// The single usable key of a JWK Set holding `jwk`.
    static func key(_ jwk: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONWebKey {
        let document = "{\"keys\":[" + jwk + "]}"
        let set = try JSONWebKeySet(json: Data(document.utf8))
        #expect(set.keys.count == 1, "the RFC key was not accepted", sourceLocation: sourceLocation)
        return try #require(set.keys.first, sourceLocation: sourceLocation)
    }

    /// `token` with one bit of one signature byte flipped.
    static func flipped(_ token: String) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var signature = Base64URL.decode(parts[2])!
        signature[signature.count / 2] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        return parts.joined(separator: ".")
    }

    static func signature(of token: String) -> [UInt8] {
        Base64URL.decode(token.split(separator: ".", omittingEmptySubsequences: false)[2])!
    }

    static func signingInput(of token: String) -> [UInt8] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return Array((parts[0] + "." + parts[1]).utf8)
    }

    // MARK: RFC 7515 A.2 — RS256

    @Test func rfc7515A2RS256Verifies() throws {
        let key = try Self.key(Self.rfc7515RSAKey)
        #expect(key.keyType == "RSA")
        #expect(key.fits(.rs256))
        let jws = try CompactJWS(Self.rfc7515RS256)
        #expect(jws.algorithm == "RS256")
        #expect(jws.claims["iss"] == .string("joe"))
        #expect(jws.claims["exp"] == .number(1_300_819_380))
        #expect(jws.claims["http://example.com/is_root"] == .bool(true))
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .rs256, key: key))
    }

    @Test func rfc7515A2RS256FlippedSignatureFails() throws {
        let key = try Self.key(Self.rfc7515RSAKey)
        let jws = try CompactJWS(Self.flipped(Self.rfc7515RS256))
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .rs256, key: key) == false)
    }

    @Test(arguments: [JWSAlgorithm.rs384, .rs512, .ps256])
    func rfc7515A2RS256UnderAnotherRSAAlgorithmFails(_ algorithm: JWSAlgorithm) throws {
        let key = try Self.key(Self.rfc7515RSAKey)
        let jws = try CompactJWS(Self.rfc7515RS256)
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: algorithm, key: key) == false)
    }

    /// With an RSA key, `JWSSignatureVerifier.verify` itself refuses a non-RSA
    /// algorithm (it does not rely on `JSONWebKey.fits` having filtered the
    /// keys first, which the public path also does).
    @Test(arguments: [JWSAlgorithm.es256, .hs256])
    func rfc7515A2RS256UnderANonRSAAlgorithmFails(_ algorithm: JWSAlgorithm) throws {
        let key = try Self.key(Self.rfc7515RSAKey)
        #expect(!key.fits(algorithm))
        let jws = try CompactJWS(Self.rfc7515RS256)
        let accepted = try JWSSignatureVerifier.verify(jws, algorithm: algorithm, key: key)
        #expect(accepted == false)
    }

    @Test func rfc7515A2RS256TamperedPayloadFails() throws {
        let key = try Self.key(Self.rfc7515RSAKey)
        // Same signature, payload re-encoded without the CRLF/space formatting.
        let payload = Base64URL.encode(Array(#"{"iss":"joe","exp":1300819380,"http://example.com/is_root":true}"#.utf8))
        let token = "eyJhbGciOiJSUzI1NiJ9." + payload + "." + Self.rfc7515RS256.split(separator: ".")[2]
        #expect(try JWSSignatureVerifier.verify(CompactJWS(token), algorithm: .rs256, key: key) == false)
    }

    // MARK: RFC 7515 A.3 — ES256

    @Test func rfc7515A3ES256Verifies() throws {
        let key = try Self.key(Self.rfc7515ECKey)
        #expect(key.keyType == "EC")
        #expect(key.fits(.es256))
        #expect(!key.fits(.es384))
        let jws = try CompactJWS(Self.rfc7515ES256)
        #expect(jws.algorithm == "ES256")
        #expect(jws.signature.count == 64)
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .es256, key: key))
    }

    @Test func rfc7515A3ES256FlippedSignatureFails() throws {
        let key = try Self.key(Self.rfc7515ECKey)
        let jws = try CompactJWS(Self.flipped(Self.rfc7515ES256))
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .es256, key: key) == false)
    }

    @Test func rfc7515A3ES256WithTheRSAKeyFails() throws {
        let rsa = try Self.key(Self.rfc7515RSAKey)
        let jws = try CompactJWS(Self.rfc7515ES256)
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .es256, key: rsa) == false)
    }

    /// The RFC tokens also pass the public path: algorithm checks, key lookup
    /// in a fetched JWK Set, signature.
    @Test func rfc7515A2AndA3PassJWSSignatureVerifier() async throws {
        let jwks = "{\"keys\":[" + Self.rfc7515RSAKey + "," + Self.rfc7515ECKey + "]}"
        let transport = ScriptedTransport(routes: [TestIDP.jwksURI: .json(jwks)])
        let cache = try KeySetCache(jwksURI: url(TestIDP.jwksURI), transport: transport)
        let verifier = JWSSignatureVerifier(keys: cache, clientSecret: nil)
        #expect(try await verifier.verify(Self.rfc7515RS256).algorithm == "RS256")
        #expect(try await verifier.verify(Self.rfc7515ES256).algorithm == "ES256")
        await expectError(.idTokenInvalid, reason: .signature) { try await verifier.verify(Self.flipped(Self.rfc7515RS256)) }
        await expectError(.idTokenInvalid, reason: .signature) { try await verifier.verify(Self.flipped(Self.rfc7515ES256)) }
        #expect(transport.requests.count == 1)
    }

    // MARK: RFC 7515 A.1 — HS256

    /// `verifyHMAC` takes the secret as a String (the client secret's UTF-8
    /// octets are the key, OIDC Core §10.1); the A.1 key is not UTF-8, so the
    /// vector cannot be fed to it. Checked here: that the skip is justified,
    /// and the RFC MAC over AuthFlow's `signingInput` with the raw key bytes.
    @Test func rfc7515A1HS256KeyIsNotUTF8SoVerifyHMACIsSkipped() throws {
        let keyBytes = try #require(Base64URL.decode(Self.rfc7515HMACKey))
        #expect(keyBytes.count == 64)
        #expect(String(validating: keyBytes, as: UTF8.self) == nil, "the A.1 key became UTF-8: call verifyHMAC with it instead")
        let jws = try CompactJWS(Self.rfc7515HS256)
        #expect(jws.algorithm == "HS256")
        #expect(jws.header["typ"] == .string("JWT"))
        let key = SymmetricKey(data: keyBytes)
        #expect(HMAC<SHA256>.isValidAuthenticationCode(jws.signature, authenticating: jws.signingInput, using: key))
        let tampered = try CompactJWS(Self.flipped(Self.rfc7515HS256))
        #expect(!HMAC<SHA256>.isValidAuthenticationCode(tampered.signature, authenticating: tampered.signingInput, using: key))
    }

    // MARK: RFC 8037 A.4/A.5 — EdDSA (Ed25519)

    @Test func rfc8037A4PayloadIsNotJSONSoCompactJWSRefusesIt() {
        expectError(.idTokenInvalid, reason: .malformed) {
            try CompactJWS(Self.rfc8037SigningInput + "." + Self.rfc8037Signature)
        }
    }

    @Test func rfc8037A5Ed25519SignatureVerifiesWithParsedKey() throws {
        let key = try Self.key(Self.rfc8037Key)
        #expect(key.keyType == "OKP")
        #expect(key.fits(.edDSA))
        guard case .ed25519(let publicKey) = key.material else {
            Issue.record("the RFC 8037 key was not parsed as Ed25519")
            return
        }
        let input = Array(Self.rfc8037SigningInput.utf8)
        let signature = try #require(Base64URL.decode(Self.rfc8037Signature))
        #expect(signature.count == 64)
        #expect(publicKey.isValidSignature(signature, for: input))
        var bad = signature
        bad[10] ^= 0x01
        #expect(!publicKey.isValidSignature(bad, for: input))
        #expect(!publicKey.isValidSignature(signature, for: input.dropLast()))
    }

    // MARK: RFC 7520 §4.2 — PS384

    @Test func rfc7520S42PayloadIsNotJSONSoCompactJWSRefusesIt() {
        expectError(.idTokenInvalid, reason: .malformed) { try CompactJWS(Self.rfc7520PS384) }
    }

    @Test func rfc7520S42PS384SignatureVerifiesWithParsedKey() throws {
        let key = try Self.key(Self.rfc7520RSAKey)
        #expect(key.keyID == "bilbo.baggins@hobbiton.example")
        #expect(key.fits(.ps384))
        guard case .rsa(let publicKey, let bits) = key.material else {
            Issue.record("the RFC 7520 key was not parsed as a usable RSA key")
            return
        }
        #expect(bits == 2048)
        let input = Self.signingInput(of: Self.rfc7520PS384)
        let signature = _RSA.Signing.RSASignature(rawRepresentation: Self.signature(of: Self.rfc7520PS384))
        #expect(publicKey.isValidSignature(signature, for: SHA384.hash(data: input), padding: .PSS))
        // Not PKCS#1 v1.5, not SHA-256.
        #expect(!publicKey.isValidSignature(signature, for: SHA384.hash(data: input), padding: .insecurePKCS1v1_5))
        #expect(!publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .PSS))
        let flipped = _RSA.Signing.RSASignature(rawRepresentation: Self.signature(of: Self.flipped(Self.rfc7520PS384)))
        #expect(!publicKey.isValidSignature(flipped, for: SHA384.hash(data: input), padding: .PSS))
    }

    // MARK: at_hash (OIDC Core §3.1.3.6)

    /// OpenID Connect Core 1.0 Appendix A.3: access token and its at_hash.
    static let oidcAccessToken = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"

    static func claims(atHash: String?) throws -> IDTokenClaims {
        try IDTokenClaims(claims: TestIDP.claims(["at_hash": atHash.map(JSONMemberValue.string)]))
    }

    @Test(arguments: [
        // OIDC Core A.3 (SHA-256, left 128 bits).
        ("RS256", "77QmUPtjPfzWtF2AnpK9RQ"),
        ("ES256", "77QmUPtjPfzWtF2AnpK9RQ"),
        // SHA-384, left 192 bits (computed with Python hashlib).
        ("ES384", "jtAeDp945y1dDqU3nkIVGNZP1HjH_MFs"),
        ("PS384", "jtAeDp945y1dDqU3nkIVGNZP1HjH_MFs"),
        // SHA-512, left 256 bits (computed with Python hashlib): EdDSA with Ed25519 uses SHA-512.
        ("EdDSA", "q7nS86GgvvFaZkzALLWqJYaJIKw2wCDAVfCAsm5CrBM"),
        ("RS512", "q7nS86GgvvFaZkzALLWqJYaJIKw2wCDAVfCAsm5CrBM"),
    ])
    func atHashKnownAnswers(_ algorithm: String, _ atHash: String) throws {
        try IDTokenRules.checkAccessTokenHash(Self.claims(atHash: atHash), accessToken: Self.oidcAccessToken, algorithm: algorithm)
    }

    @Test(arguments: [
        ("ES384", "77QmUPtjPfzWtF2AnpK9RQ"),
        ("EdDSA", "77QmUPtjPfzWtF2AnpK9RQ"),
        ("RS256", "jtAeDp945y1dDqU3nkIVGNZP1HjH_MFs"),
        ("RS256", "q7nS86GgvvFaZkzALLWqJYaJIKw2wCDAVfCAsm5CrBM"),
        ("EdDSA", "jtAeDp945y1dDqU3nkIVGNZP1HjH_MFs"),
    ])
    func atHashOfAnotherHashFails(_ algorithm: String, _ atHash: String) throws {
        let claims = try Self.claims(atHash: atHash)
        expectError(.idTokenInvalid, reason: .atHash) {
            try IDTokenRules.checkAccessTokenHash(claims, accessToken: Self.oidcAccessToken, algorithm: algorithm)
        }
    }

    @Test func atHashOfAnotherTokenFails() throws {
        let claims = try Self.claims(atHash: "77QmUPtjPfzWtF2AnpK9RQ")
        expectError(.idTokenInvalid, reason: .atHash) {
            try IDTokenRules.checkAccessTokenHash(claims, accessToken: Self.oidcAccessToken + "x", algorithm: "RS256")
        }
    }

    @Test func atHashAbsentIsNotChecked() throws {
        try IDTokenRules.checkAccessTokenHash(Self.claims(atHash: nil), accessToken: "anything", algorithm: "RS256")
    }

    @Test func atHashWithUnknownAlgorithmFails() throws {
        let claims = try Self.claims(atHash: "77QmUPtjPfzWtF2AnpK9RQ")
        expectError(.idTokenInvalid, reason: .atHash) {
            try IDTokenRules.checkAccessTokenHash(claims, accessToken: Self.oidcAccessToken, algorithm: "ES512")
        }
    }

    /// The whole ID-token path, with at_hash from a signed token (EdDSA → SHA-512).
    @Test func idTokenVerifierChecksEdDSAAtHashWithSHA512() async throws {
        let idp = try TestIDP(keys: [SigningKey.ed.jwk(kid: "ed")])
        let good = try jws(
            TestIDP.claims(["at_hash": .string("q7nS86GgvvFaZkzALLWqJYaJIKw2wCDAVfCAsm5CrBM")]), key: .ed, alg: "EdDSA", kid: "ed")
        let claims = try await idp.verifier().verify(good, rules: TestIDP.rules(), accessToken: Self.oidcAccessToken, now: TestIDP.now)
        #expect(claims.accessTokenHash == "q7nS86GgvvFaZkzALLWqJYaJIKw2wCDAVfCAsm5CrBM")
        let sha256 = try jws(TestIDP.claims(["at_hash": .string("77QmUPtjPfzWtF2AnpK9RQ")]), key: .ed, alg: "EdDSA", kid: "ed")
        await expectError(.idTokenInvalid, reason: .atHash) {
            try await idp.verifier().verify(sha256, rules: TestIDP.rules(), accessToken: Self.oidcAccessToken, now: TestIDP.now)
        }
    }
}
