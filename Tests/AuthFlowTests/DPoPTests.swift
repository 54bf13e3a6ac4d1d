import AuthFlowTestSupport
import Crypto
import Foundation
import Testing

@testable import AuthFlow

/// DPoP (RFC 9449) in the engine: proofs, key storage, nonces, token type.
@Suite struct DPoPTests {
    @Test func aProofHasTheRequiredHeaderAndClaimsAndVerifiesWithItsJWK() throws {
        let key = DPoPKey()
        let proof = try key.proof(method: "POST", url: url("https://as.example:8443/token?x=1#frag"), accessToken: "AT-1", nonce: "n-\"1")
        let jws = try CompactJWS(proof)
        #expect(jws.header["typ"] == .string("dpop+jwt") && jws.header["alg"] == .string("ES256"))
        let jwk = try #require(jws.header["jwk"]?.objectValue)
        #expect(jwk["d"] == nil)
        #expect(jws.claims["htm"] == .string("POST"))
        #expect(jws.claims["htu"] == .string("https://as.example:8443/token"))
        #expect(jws.claims["nonce"] == .string("n-\"1"))
        #expect(jws.claims["ath"] == .string(Base64URL.encode(Array(SHA256.hash(data: Array("AT-1".utf8))))))
        #expect(abs(try #require(jws.claims["iat"]?.numberValue) - Date().timeIntervalSince1970) < 5)
        let other = try CompactJWS(try key.proof(method: "POST", url: url("https://as.example/token")))
        #expect(jws.claims["jti"] != nil && jws.claims["jti"] != other.claims["jti"])
        #expect(other.claims["ath"] == nil && other.claims["nonce"] == nil)
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .es256, key: #require(JSONWebKey(jwk))))
    }

    @Test func hostileMethodURLAndNonceAreEscapedAndTheProofStillVerifies() throws {
        let key = DPoPKey()
        // A path with a percent-encoded quote, backslash and control byte and raw non-ASCII
        // (URL keeps what it is given), a method and a nonce with the characters themselves.
        let target = try #require(URL(string: "https://as.example/caf\u{E9}/%22%5C%01/\u{1F600}"))
        let method = "P\"O\\S\u{1}T\u{7F}é"
        let nonce = "n\"\\\n\t\u{0}\u{1F}\u{E9}\u{1F600}</script>"
        let proof = try key.proof(method: method, url: target, accessToken: "AT", nonce: nonce)
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        let claimsBytes = try #require(Base64URL.decode(String(parts[1])))
        let text = String(decoding: claimsBytes, as: UTF8.self)
        #expect(text.contains("\"htm\":\"P\\\"O\\\\S\\u0001T\u{7F}é\""))
        #expect(text.contains("\"nonce\":\"n\\\"\\\\\\u000a\\u0009\\u0000\\u001f\u{E9}\u{1F600}</script>\""))
        // Foundation's parser agrees on every value.
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(claimsBytes)) as? [String: Any])
        #expect(parsed["htm"] as? String == method)
        #expect(parsed["nonce"] as? String == nonce)
        #expect(parsed["htu"] as? String == target.absoluteString)
        #expect(Set(parsed.keys) == ["htm", "htu", "iat", "jti", "ath", "nonce"])
        let jws = try CompactJWS(proof)
        #expect(jws.claims["nonce"] == .string(nonce) && jws.claims["htm"] == .string(method))
        let jwk = try #require(jws.header["jwk"]?.objectValue)
        #expect(try JWSSignatureVerifier.verify(jws, algorithm: .es256, key: #require(JSONWebKey(jwk))))
    }

    @Test func jtisAre128BitsFreshAndRandom() throws {
        let key = DPoPKey()
        var seen = Set<String>()
        for _ in 0..<200 {
            let jti = try #require(try CompactJWS(try key.proof(method: "GET", url: url("https://rs.example/"))).claims["jti"]?.stringValue)
            #expect(Base64URL.decode(jti)?.count == 16)
            seen.insert(jti)
        }
        #expect(seen.count == 200)
    }

    @Test func athFollowsTheAccessToken() throws {
        // The hash of the last token is kept with the key: a new token must give a new ath.
        let key = DPoPKey()
        for token in ["token-a", "token-b", "token-a", "token-a", String(repeating: "é", count: 300)] {
            let claims = try CompactJWS(try key.proof(method: "GET", url: url("https://rs.example/"), accessToken: token)).claims
            #expect(claims["ath"]?.stringValue == Base64URL.encode(Array(SHA256.hash(data: Array(token.utf8)))))
        }
    }

    @Test func proofBytesWritersMatchTheirReferences() {
        for count in 0...40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var output: [UInt8] = []
            output.append(contentsOf: "prefix.".utf8)
            Base64URL.append(bytes, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == "prefix." + Base64URL.encode(bytes))
        }
        for value: Int64 in [0, 7, 10, 99, 1_700_000_000, Int64.max, -5, Int64.min] {
            var output: [UInt8] = []
            ProofBytes.appendDecimal(value, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == String(value))
        }
    }

    @Test func theThumbprintIsRFC7638() throws {
        let key = DPoPKey()
        let jwk = key.publicJWK
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"]!.stringValue!)","y":"\#(jwk["y"]!.stringValue!)"}"#
        #expect(key.thumbprint == Base64URL.encode(Array(SHA256.hash(data: Array(canonical.utf8)))))
    }

    @Test func theKeyRoundTripsAsAPrivateJWKAndIsNeverDescribed() throws {
        let key = DPoPKey()
        let data = try JSONEncoder().encode(key)
        let decoded = try JSONDecoder().decode(DPoPKey.self, from: data)
        #expect(decoded == key && decoded.thumbprint == key.thumbprint)
        let d = try #require(JSONMemberValue.object(from: data)?["d"]?.stringValue)
        #expect(!key.description.contains(d))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(DPoPKey.self, from: Data(#"{"kty":"EC","crv":"P-384","d":"AA"}"#.utf8))
        }
    }

    private func client(_ server: LocalHTTPServer, dpop: DPoPBinding) throws -> OAuthClient {
        var client = try TokenEndpointTests.client(server)
        client.dpop = dpop
        return client
    }

    @Test func useDPoPNonceIsRetriedOnceAndTheNonceRemembered() async throws {
        let server = try LocalHTTPServer { request in
            let proof = request.header("DPoP").flatMap { try? CompactJWS($0) }
            guard proof?.claims["nonce"] == .string("n1") else {
                return .init(
                    status: 400, headers: [("Content-Type", "application/json"), ("DPoP-Nonce", "n1")],
                    body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
            }
            return .json(#"{"access_token":"AT","token_type":"DPoP","refresh_token":"RT"}"#)
        }
        defer { server.stop() }
        let binding = DPoPBinding()
        let client = try client(server, dpop: binding)
        let credentials = try await client.exchange(TokenEndpointTests.grant())
        #expect(credentials.token.tokenType == "DPoP")
        #expect(server.requests.count == 2)
        #expect(binding.nonces.nonce(for: server.url("/other")) == "n1")
        _ = try await client.refresh(credentials)
        #expect(server.requests.count == 3) // the remembered nonce is sent at once
    }

    @Test func aServerThatKeepsAskingForANonceIsAnsweredOnlyOnce() async throws {
        let server = try LocalHTTPServer { _ in
            .init(
                status: 400, headers: [("Content-Type", "application/json"), ("DPoP-Nonce", UUID().uuidString)],
                body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
        }
        defer { server.stop() }
        let error = await #expect(throws: AuthFlowError.self) {
            try await client(server, dpop: DPoPBinding()).exchange(TokenEndpointTests.grant())
        }
        #expect(error?.oauth?.error == "use_dpop_nonce")
        #expect(server.requests.count == 2)
    }

    @Test func aBearerAnswerToADPoPRequestIsRefusedUnlessAllowed() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"access_token":"AT","token_type":"Bearer"}"#) }
        defer { server.stop() }
        let error = await #expect(throws: AuthFlowError.self) {
            try await client(server, dpop: DPoPBinding()).exchange(TokenEndpointTests.grant())
        }
        #expect(error?.category == .invalidResponse)
        #expect(error?.message == "the provider answered a DPoP token request with a Bearer token")
        let tolerant = try client(server, dpop: DPoPBinding(allowsBearerDowngrade: true))
        #expect(try await tolerant.exchange(TokenEndpointTests.grant()).token.tokenType == "Bearer")
    }

    @Test func theAuthorizationRequestCarriesDPoPJKT() throws {
        var client = try OAuthClient(
            metadata: ProviderMetadata(
                authorizationEndpoint: url("https://as.example/authorize"),
                tokenEndpoint: url("https://as.example/token")), clientID: "app")
        let binding = DPoPBinding()
        client.dpop = binding
        let request = try client.authorizationRequest(redirectURI: url("http://127.0.0.1:9/cb"), scopes: ["openid"])
        let query = formDictionary(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["dpop_jkt"] == binding.key.thumbprint)
    }
}

/// `htu` as the client writes it and as a server compares it (RFC 9449 §4.2, §4.3).
@Suite struct DPoPTargetTests {
    @Test func theClientsHtuDropsUserinfoQueryAndFragment() throws {
        let proof = try DPoPKey().proof(method: "GET", url: URL(string: "https://user:secret@rs.example:8443/api/v1?x=1#frag")!)
        let htu = try CompactJWS(proof).claims["htu"]
        #expect(htu == .string("https://rs.example:8443/api/v1"))
        #expect(DPoPTarget.htu(of: "https://a@b@rs.example/p?q@x") == "https://rs.example/p")
        #expect(DPoPTarget.htu(of: "https://rs.example/p@q") == "https://rs.example/p@q")
    }

    @Test func serversCompareTheNormalisedForm() {
        let normal = "https://rs.example/a/b"
        for same in [
            "HTTPS://RS.Example/a/b", "https://rs.example:443/a/b", "https://rs.example/a/./c/../b", "https://rs.example/%61/b",
            "https://rs.example/a/b?q#f",
        ] {
            #expect(DPoPTarget.normalized(same) == normal, "\(same)")
        }
        #expect(DPoPTarget.normalized("http://rs.example:80") == "http://rs.example/")
        #expect(DPoPTarget.normalized("https://rs.example:8443/a%2fb") == "https://rs.example:8443/a%2Fb")
        for different in ["https://rs.example/a/B", "http://rs.example/a/b", "https://rs.example:444/a/b", "https://other.example/a/b"] {
            #expect(DPoPTarget.normalized(different) != normal, "\(different)")
        }
        for bad in [
            "ftp://rs.example/a", "https:///a", "https://rs.example:x/a", "https://rs.example/%zz", "/a/b",
            "https://u:p@rs.example/a/b", "https://u@rs.example/a/b",
        ] {
            #expect(DPoPTarget.normalized(bad) == nil, "\(bad)")
        }
    }
}

/// One set of public-JWK rules per key type, for the client and the provider.
@Suite struct PublicJWKRulesTests {
    @Test func privateMembersAndSymmetricKeysAreRefused() throws {
        let rsa: [String: JSONMemberValue] = ["kty": .string("RSA"), "n": .string("AQAB"), "e": .string("AQAB")]
        #expect(PublicJWKRules.violation(in: rsa) == nil)
        for member in ["d", "p", "q", "dp", "dq", "qi", "oth"] {
            var key = rsa
            key[member] = .string("AQAB")
            #expect(PublicJWKRules.violation(in: key) == .privateMember(member))
        }
        #expect(PublicJWKRules.violation(in: ["kty": .string("EC"), "crv": .string("P-256"), "d": .string("AA")]) == .privateMember("d"))
        #expect(
            PublicJWKRules.violation(in: ["kty": .string("OKP"), "crv": .string("Ed25519"), "d": .string("AA")]) == .privateMember("d"))
        #expect(PublicJWKRules.violation(in: ["kty": .string("oct"), "k": .string("AA")]) == .symmetric)
        #expect(PublicJWKRules.violation(in: ["kty": .string("EC"), "crv": .string("P-256"), "q": .string("AA")]) == nil)
    }

    @Test func aJWKSetKeyWithPrivateMembersIsSkipped() throws {
        let key = try ClientAssertionKey.generate(algorithm: "ES256", keyID: "k")
        var leaked = key.publicJWK
        leaked["d"] = .string("AAAA")
        let data = try JSONEncoder().encode(JSONMemberValue.object(["keys": .array([.object(leaked), .object(key.publicJWK)])]))
        #expect(try JSONWebKeySet(json: data).keys.count == 1)
    }
}
