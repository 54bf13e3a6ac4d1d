import AuthFlowTestSupport
import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import AuthFlow

/// `private_key_jwt` / `client_secret_jwt` on the client side: keys read
/// from PEM and JWK, the assertion on the wire, and its secrecy.
@Suite struct ClientAssertionTests {
    // MARK: keys

    @Test func pemKeysOfEachTypeAreRead() throws {
        let p256 = P256.Signing.PrivateKey()
        #expect(try ClientAssertionKey(pem: p256.pemRepresentation).algorithm == "ES256")
        let ed = Curve25519.Signing.PrivateKey()
        #expect(try ClientAssertionKey(pem: ed.pemRepresentation).algorithm == "EdDSA")
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        #expect(try ClientAssertionKey(pem: rsa.pemRepresentation).algorithm == "RS256")
        let ps = try ClientAssertionKey(pem: rsa.pemRepresentation, algorithm: "PS256", keyID: "k1")
        #expect(ps.algorithm == "PS256" && ps.keyID == "k1")
        #expect(ps.description == "PS256 key k1")
    }

    @Test func jwkKeysOfEachTypeAreReadWithTheirAlgAndKid() throws {
        for algorithm in ["ES256", "EdDSA", "PS256"] {
            let key = try ClientAssertionKey.generate(algorithm: algorithm, keyID: "kid-\(algorithm)")
            var jwk = key.publicJWK
            let pemKey = try ClientAssertionKey(pem: key.privatePEM, algorithm: algorithm)
            #expect(pemKey.publicJWK["x"] == jwk["x"] && pemKey.publicJWK["n"] == jwk["n"])
            switch algorithm {
            case "ES256":
                let p256 = try P256.Signing.PrivateKey(pemRepresentation: key.privatePEM)
                jwk["d"] = .string(Base64URL.encode(Array(p256.rawRepresentation)))
            case "EdDSA":
                let ed = try Curve25519.Signing.PrivateKey(pemRepresentation: key.privatePEM)
                jwk["d"] = .string(Base64URL.encode(Array(ed.rawRepresentation)))
            default:
                // RSA private JWKs are read through the same parameters swift-crypto takes; checked via PEM here.
                continue
            }
            let fromJWK = try ClientAssertionKey(jwk: try JSONEncoder().encode(JSONMemberValue.object(jwk)))
            #expect(fromJWK == key)
            #expect(fromJWK.keyID == "kid-\(algorithm)")
        }
    }

    @Test func unusableKeysAreConfigurationErrors() throws {
        func refused(_ body: () throws -> ClientAssertionKey) -> AuthFlowError? {
            #expect(throws: AuthFlowError.self) { _ = try body() }
        }
        let garbage = refused { try ClientAssertionKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
        #expect(garbage?.category == .configuration)
        #expect(garbage?.message == "the private key is not a PEM RSA, P-256 or Ed25519 private key")

        let p256 = P256.Signing.PrivateKey()
        let misfit = refused { try ClientAssertionKey(pem: p256.pemRepresentation, algorithm: "RS256") }
        #expect(misfit?.message == "the algorithm RS256 does not fit a P-256 key (ES256)")

        let weak = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        let short = refused { try ClientAssertionKey(pem: weak.pemRepresentation) }
        #expect(short?.category == .configuration) // swift-crypto itself refuses RSA keys under 2048 bits

        let other = P256.Signing.PrivateKey()
        let point = Array(other.publicKey.x963Representation)
        let mismatched: JSONMemberValue = .object([
            "kty": .string("EC"), "crv": .string("P-256"),
            "x": .string(Base64URL.encode(point[1...32])), "y": .string(Base64URL.encode(point[33...64])),
            "d": .string(Base64URL.encode(Array(p256.rawRepresentation))),
        ])
        let disagree = refused { try ClientAssertionKey(jwk: try JSONEncoder().encode(mismatched)) }
        #expect(disagree?.message == "the private JWK is unusable: \"x\"/\"y\" do not match \"d\"")

        let publicOnly = refused { try ClientAssertionKey(jwk: Data(#"{"kty":"OKP","crv":"Ed25519","x":"AAAA"}"#.utf8)) }
        #expect(publicOnly?.message == "the private JWK is unusable: \"d\" is missing or not base64url")
        #expect(!(publicOnly?.description.contains("AAAA") ?? true))
    }

    // MARK: the assertion on the wire

    private func sentForm(_ authentication: ClientAuthentication, issuer: Issuer? = nil) async throws -> (
        form: [String: String], tokenURL: URL, header: String?
    ) {
        let server = try LocalHTTPServer { _ in .json(ClientAuthenticationTests.okBody) }
        defer { server.stop() }
        var metadata = ProviderMetadata(
            issuer: issuer, authorizationEndpoint: URL(string: "https://idp.example/authorize")!,
            tokenEndpoint: server.url("/token"))
        metadata.issuer = issuer
        let client = try OAuthClient(metadata: metadata, clientID: "app+1", authentication: authentication, timeout: 5)
        _ = try await client.exchange(TokenEndpointTests.grant(clientID: "app+1"))
        let request = try #require(server.requests.first)
        return (formDictionary(request.bodyText), server.url("/token"), request.header("Authorization"))
    }

    @Test func privateKeyJWTSendsAFreshShortLivedSignedAssertion() async throws {
        let key = try ClientAssertionKey.generate(algorithm: "ES256", keyID: "k-es")
        let first = try await sentForm(.privateKeyJWT(key: key), issuer: "https://issuer.example")
        let second = try await sentForm(.privateKeyJWT(key: key), issuer: "https://issuer.example")
        #expect(first.header == nil)
        #expect(first.form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
        #expect(first.form["client_id"] == "app+1")
        #expect(first.form["client_secret"] == nil)
        let jws = try CompactJWS(try #require(first.form["client_assertion"]))
        #expect(jws.header["alg"] == .string("ES256") && jws.header["kid"] == .string("k-es"))
        #expect(jws.claims["iss"] == .string("app+1") && jws.claims["sub"] == .string("app+1"))
        // The issuer as the single aud string by default (draft-ietf-oauth-rfc7523bis).
        #expect(jws.claims["aud"] == .string("https://issuer.example"))
        let iat = try #require(jws.claims["iat"]?.numberValue)
        let exp = try #require(jws.claims["exp"]?.numberValue)
        #expect(exp - iat == 60)
        #expect(abs(iat - Date().timeIntervalSince1970) < 30)
        let other = try CompactJWS(try #require(second.form["client_assertion"]))
        #expect(try #require(jws.claims["jti"]?.stringValue).count >= 32)
        #expect(jws.claims["jti"] != other.claims["jti"])
        let publicKey = try #require(JSONWebKey(key.publicJWK))
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .es256, key: publicKey))
    }

    @Test func audienceFollowsTheChoice() async throws {
        let key = try ClientAssertionKey.generate(algorithm: "EdDSA")
        let issuer = try await sentForm(.privateKeyJWT(key: key, audience: .issuer), issuer: "https://issuer.example")
        #expect(try CompactJWS(#require(issuer.form["client_assertion"])).claims["aud"] == .string("https://issuer.example"))
        let noIssuer = try await sentForm(.privateKeyJWT(key: key, audience: .issuer))
        #expect(try CompactJWS(#require(noIssuer.form["client_assertion"])).claims["aud"] == .string(noIssuer.tokenURL.absoluteString))
        let endpoint = try await sentForm(.privateKeyJWT(key: key, audience: .tokenEndpoint), issuer: "https://issuer.example")
        #expect(try CompactJWS(#require(endpoint.form["client_assertion"])).claims["aud"] == .string(endpoint.tokenURL.absoluteString))
        let byDefault = try await sentForm(.clientSecretJWT(secret: String(repeating: "s", count: 32)), issuer: "https://issuer.example")
        #expect(try CompactJWS(#require(byDefault.form["client_assertion"])).claims["aud"] == .string("https://issuer.example"))
        let fixed = try await sentForm(.privateKeyJWT(key: key, audience: .value("urn:example:as")))
        #expect(try CompactJWS(#require(fixed.form["client_assertion"])).claims["aud"] == .string("urn:example:as"))
    }

    @Test func clientSecretJWTIsHS256WithTheSecret() async throws {
        let secret = "hmac-secret-0123456789-0123456789"
        let sent = try await sentForm(.clientSecretJWT(secret: secret))
        #expect(sent.form["client_secret"] == nil)
        let jws = try CompactJWS(try #require(sent.form["client_assertion"]))
        #expect(jws.header["alg"] == .string("HS256") && jws.header["kid"] == nil)
        #expect(JWSSignatureVerifier.verifyHMAC(jws, algorithm: .hs256, secret: secret))
        #expect(!JWSSignatureVerifier.verifyHMAC(jws, algorithm: .hs256, secret: "other"))
        #expect(ClientAuthentication.clientSecretJWT(secret: secret).secret == secret)
        #expect(!"\(ClientAuthentication.clientSecretJWT(secret: secret))".contains(secret))
    }

    @Test func aClientSecretJWTSecretShorterThanTheHashIsRefused() async throws {
        let metadata = ProviderMetadata(
            issuer: "https://issuer.example", authorizationEndpoint: URL(string: "https://issuer.example/a")!,
            tokenEndpoint: URL(string: "https://issuer.example/token")!)
        let short = String(repeating: "s", count: 31)
        let error = #expect(throws: AuthFlowError.self) {
            _ = try OAuthClient(metadata: metadata, clientID: "app", authentication: .clientSecretJWT(secret: short))
        }
        #expect(error?.category == .configuration && error?.reason == .secretTooShort)
        #expect(error?.message == "the client_secret_jwt secret has 31 bytes; HS256 needs at least 32")
        #expect(!(error?.description.contains(short) ?? true))
        var form: [(String, String)] = []
        var headers: [(name: String, value: String)] = []
        let direct = #expect(throws: AuthFlowError.self) {
            try ClientAuthentication.clientSecretJWT(secret: short).apply(
                clientID: "app", endpoint: metadata.tokenEndpoint, to: &form, headers: &headers)
        }
        #expect(direct?.reason == .secretTooShort && form.isEmpty)
        _ = try OAuthClient(metadata: metadata, clientID: "app", authentication: .clientSecretJWT(secret: short + "s"))
    }

    @Test func anEchoedAssertionIsRedactedFromTheError() async throws {
        let server = try LocalHTTPServer { request in
            let assertion = formDictionary(request.bodyText)["client_assertion"] ?? ""
            return .json(#"{"error":"invalid_client","error_description":"bad assertion \#(assertion)"}"#, status: 400)
        }
        defer { server.stop() }
        let key = try ClientAssertionKey.generate(algorithm: "ES256")
        let client = try TokenEndpointTests.client(server, authentication: .privateKeyJWT(key: key))
        let error = await #expect(throws: AuthFlowError.self) { try await client.exchange(TokenEndpointTests.grant()) }
        #expect(error?.oauth?.error == "invalid_client")
        let description = try #require(error?.oauth?.errorDescription)
        #expect(description.hasPrefix("bad assertion "))
        #expect(!description.contains("eyJ"))
    }
}
