#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Crypto
import AuthFlowHummingbird
import Foundation
import Testing

/// RFC 9068 JWT access tokens, signed with the embedded provider's own keys
/// and verified with its real JWK Set, against a real API on 127.0.0.1.
@Suite("JWT access tokens")
struct JWTAccessTokenTests {
    @Test("a good ES256 or RS256 token reaches the route as its identity, sent by AuthSession")
    func accepted() async throws {
        try await TestAPI.with { api in
            for signer in [TestKeys.Signer.es256, .rs256] {
                let token = try TestKeys.sign(api.claims(), with: signer)
                let client = try await OAuthClient(issuer: api.provider.issuer, clientID: "authflow-demo")
                let response = try TokenResponse(
                    json: Data(#"{"access_token":"\#(token)","token_type":"Bearer","expires_in":300}"#.utf8), requestedScopes: [])
                let session = AuthSession(
                    client: client, credentials: OAuthCredentials(issuer: nil, clientID: "authflow-demo", token: response, idToken: nil))
                let answer = try await session.send(HTTPTransportRequest(method: "GET", url: api.items))
                #expect(answer.status == 200)
                #expect(
                    String(decoding: answer.body, as: UTF8.self)
                        == #"{"client_id":"authflow-demo","email":"demo@example.com","jkt":null,"scopes":["read","write"],"source":"jwt","sub":"demo"}"#
                )
            }
            // typ may also be the full media type.
            let full = try TestKeys.sign(api.claims(), header: ["typ": .string("application/at+jwt")])
            #expect(try await api.send(authorization: "Bearer \(full)").status == 200)
        }
    }

    @Test("each claim rule refuses its bad input: 401 invalid_token with the rule in the challenge")
    func claimRules() async throws {
        try await TestAPI.with { api in
            let resource = api.resourceURL.absoluteString
            let issuer = api.provider.issuer.identifier
            let now = Date().timeIntervalSince1970.rounded(.down)
            let cases: [(String, String, String)] = [
                (
                    "wrong aud", try TestKeys.sign(api.claims(["aud": .string("https://other.example/api")])),
                    "the token is not addressed to \(resource)"
                ),
                ("wrong iss", try TestKeys.sign(api.claims(["iss": .string("https://evil.example")])), "the token's iss is not \(issuer)"),
                ("expired", try TestKeys.sign(api.claims(["exp": .number(now - 120)])), "the token has expired"),
                ("no exp", try TestKeys.sign(api.claims(["exp": nil])), "the token has no exp"),
                ("nbf ahead", try TestKeys.sign(api.claims(["nbf": .number(now + 600)])), "the token is not valid yet (nbf)"),
                ("iat ahead", try TestKeys.sign(api.claims(["iat": .number(now + 600)])), "the token was issued in the future"),
                ("wrong typ", try TestKeys.sign(api.claims(), header: ["typ": .string("JWT")]), "the token's typ is not at+jwt (RFC 9068)"),
                ("no typ", try TestKeys.sign(api.claims(), header: [:]), "the token's typ is not at+jwt (RFC 9068)"),
                ("no client_id", try TestKeys.sign(api.claims(["client_id": nil])), "the token has no client_id"),
                ("no sub", try TestKeys.sign(api.claims(["sub": nil])), "the token has no sub"),
                ("unknown kid", try TestKeys.sign(api.claims(), with: .stranger), "no key in the provider's JWK Set fits the token"),
                ("alg none", Self.unsigned(api.claims()), "unsigned tokens (alg none) are refused"),
                ("HS256", Self.hmac(api.claims()), "HS256 needs a client secret; this is a public client"),
            ]
            for (name, token, description) in cases {
                let response = try await api.send(authorization: "Bearer \(token)")
                #expect(response.status == 401, "\(name)")
                #expect(TestAPI.challenges(response) == api.expected(error: "invalid_token", description: description), "\(name)")
            }
            // A token with a known kid whose signature was made by another key.
            let forged = try Self.resigned(TestKeys.sign(api.claims()))
            let response = try await api.send(authorization: "Bearer \(forged)")
            #expect(response.status == 401)
            #expect(TestAPI.challenges(response) == api.expected(error: "invalid_token", description: "the token's signature is invalid"))
        }
    }

    @Test("a route's scopes: missing → 403 insufficient_scope naming them; no token → a bare challenge")
    func scopes() async throws {
        try await TestAPI.with { api in
            let readOnly = try TestKeys.sign(api.claims(["scope": .string("read")]))
            #expect(try await api.send(authorization: "Bearer \(readOnly)").status == 200)
            let response = try await api.send("POST", authorization: "Bearer \(readOnly)")
            #expect(response.status == 403)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(
                        error: "insufficient_scope", description: "the access token lacks a scope this resource needs", scope: "read write")
            )
            let none = try await api.send()
            #expect(none.status == 401)
            #expect(TestAPI.challenges(none) == api.expected())
            let malformed = try await api.send(authorization: "Basic abc")
            #expect(malformed.status == 400)
            #expect(
                TestAPI.challenges(malformed)
                    == api.expected(error: "invalid_request", description: "the Authorization scheme is neither Bearer nor DPoP"))
        }
    }

    @Test("the Authorization field: the scheme in any case; a token that is not a token68 is 400 invalid_request, a malformed JWT 401")
    func authorizationField() async throws {
        try await TestAPI.with { api in
            let token = try TestKeys.sign(api.claims())
            for scheme in ["bearer", "BEARER", "BeArEr"] {
                #expect(try await api.send(authorization: "\(scheme) \(token)").status == 200, "\(scheme)")
            }
            // Spaces after the scheme are skipped.
            #expect(try await api.send(authorization: "Bearer   \(token)").status == 200)
            let notToken68 = api.expected(error: "invalid_request", description: "the access token is not a token68")
            // An opaque token, and a token with a JWS's two dots (checked by its decoding first), outside token68.
            // `=` only as padding at the end.
            for bad in ["Bearer opaque!token", "Bearer a!.b.c", "Bearer \(token.dropLast(2))é", "Bearer ab=cd", "Bearer ="] {
                let response = try await api.send(authorization: bad)
                #expect(response.status == 400, "\(bad)")
                #expect(TestAPI.challenges(response) == notToken68, "\(bad)")
            }
            let noToken = try await api.send(authorization: "Bearer")
            #expect(noToken.status == 400)
            #expect(
                TestAPI.challenges(noToken) == api.expected(error: "invalid_request", description: "the Authorization field has no token"))
            // token68 but not base64url: the JWT's own error.
            let malformed = try await api.send(authorization: "Bearer a+b.c/d.e=")
            #expect(malformed.status == 401)
            #expect(TestAPI.challenges(malformed).contains(#"error="invalid_token""#))
            // A token68 with other than two dots is an opaque token: introspected, unknown to the provider.
            let opaque = try await api.send(authorization: "Bearer a.b.c.d")
            #expect(opaque.status == 401)
            #expect(TestAPI.challenges(opaque) == api.expected(error: "invalid_token", description: "the token is not active"))
        }
    }

    @Test("the protected-resource metadata (RFC 9728) is served where the challenges point")
    func metadata() async throws {
        try await TestAPI.with { api in
            let response = try await api.send("GET", URL(string: api.metadataURL)!)
            #expect(response.status == 200)
            let document = try #require(JSONMemberValue.object(from: response.body))
            #expect(document["resource"] == .string(api.resourceURL.absoluteString))
            #expect(document["authorization_servers"] == .array([.string(api.provider.issuer.identifier)]))
            #expect(document["scopes_supported"] == .array([.string("read"), .string("write")]))
            #expect(document["bearer_methods_supported"] == .array([.string("header")]))
            #expect(document["dpop_bound_access_tokens_required"] == .bool(false))
            // AuthFlow's own client reads it.
            let parsed = try ProtectedResourceMetadata(json: response.body)
            #expect(parsed.authorizationServers == [api.provider.issuer])
        }
    }

    static func unsigned(_ claims: [String: JSONMemberValue]) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"at+jwt"}"#.utf8))
        return header + "." + Base64URL.encode(Array((try? JSONEncoder().encode(claims)) ?? Data())) + "."
    }

    static func hmac(_ claims: [String: JSONMemberValue]) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"at+jwt","kid":"api-es256"}"#.utf8))
        return header + "." + Base64URL.encode(Array((try? JSONEncoder().encode(claims)) ?? Data())) + "." + Base64URL.encode([1, 2, 3])
    }

    /// `token` with its signature replaced by the stranger key's signature over the same input.
    static func resigned(_ token: String) throws -> String {
        let parts = token.split(separator: ".")
        let input = parts[0] + "." + parts[1]
        let signature = try TestKeys.stranger.signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + Base64URL.encode(Array(signature))
    }
}
#endif
