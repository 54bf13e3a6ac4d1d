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
        #expect(try JWSVerifier.verify(jws, algorithm: .es256, key: #require(JSONWebKey(jwk))))
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
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(DPoPKey.self, from: Data(#"{"kty":"EC","crv":"P-384","d":"AA"}"#.utf8)) }
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
                return .init(status: 400, headers: [("Content-Type", "application/json"), ("DPoP-Nonce", "n1")],
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
        #expect(server.requests.count == 3)   // the remembered nonce is sent at once
    }

    @Test func aServerThatKeepsAskingForANonceIsAnsweredOnlyOnce() async throws {
        let server = try LocalHTTPServer { _ in
            .init(status: 400, headers: [("Content-Type", "application/json"), ("DPoP-Nonce", UUID().uuidString)],
                  body: Data(#"{"error":"use_dpop_nonce"}"#.utf8))
        }
        defer { server.stop() }
        let error = await #expect(throws: AuthFlowError.self) { try await client(server, dpop: DPoPBinding()).exchange(TokenEndpointTests.grant()) }
        #expect(error?.oauth?.error == "use_dpop_nonce")
        #expect(server.requests.count == 2)
    }

    @Test func aBearerAnswerToADPoPRequestIsRefusedUnlessAllowed() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"access_token":"AT","token_type":"Bearer"}"#) }
        defer { server.stop() }
        let error = await #expect(throws: AuthFlowError.self) { try await client(server, dpop: DPoPBinding()).exchange(TokenEndpointTests.grant()) }
        #expect(error?.category == .invalidResponse)
        #expect(error?.message == "the provider answered a DPoP token request with a Bearer token")
        let tolerant = try client(server, dpop: DPoPBinding(allowsBearerDowngrade: true))
        #expect(try await tolerant.exchange(TokenEndpointTests.grant()).token.tokenType == "Bearer")
    }

    @Test func theAuthorizationRequestCarriesDPoPJKT() throws {
        var client = try OAuthClient(metadata: ProviderMetadata(authorizationEndpoint: url("https://as.example/authorize"),
                                                                tokenEndpoint: url("https://as.example/token")), clientID: "app")
        let binding = DPoPBinding()
        client.dpop = binding
        let request = try client.authorizationRequest(redirectURI: url("http://127.0.0.1:9/cb"), scopes: ["openid"])
        let query = formDictionary(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["dpop_jkt"] == binding.key.thumbprint)
    }
}
