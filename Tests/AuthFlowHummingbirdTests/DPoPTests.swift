#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowProvider
import AuthFlowHummingbird
import AuthFlowTestSupport
import Foundation
import Testing

/// DPoP-bound access tokens (RFC 9449 §7): the proof rules at the API, the
/// binding, replay and server nonces.
@Suite("DPoP at the API")
struct DPoPTests {
    static func boundSession(_ api: TestAPI, token: String, key: DPoPKey) async throws -> AuthSession {
        var client = try await OAuthClient(issuer: api.provider.issuer, clientID: "authflow-demo")
        client.dpop = DPoPBinding(key: key)
        let response = try TokenResponse(
            json: Data(#"{"access_token":"\#(token)","token_type":"DPoP","expires_in":300}"#.utf8), requestedScopes: [], allowDPoP: true)
        return AuthSession(
            client: client, credentials: OAuthCredentials(issuer: nil, clientID: "authflow-demo", token: response, idToken: nil))
    }

    @Test("a DPoP-bound JWT with a good proof from AuthSession reaches the route with the key's thumbprint")
    func accepted() async throws {
        try await TestAPI.with { api in
            let key = DPoPKey()
            let token = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(key.thumbprint)])]))
            let session = try await Self.boundSession(api, token: token, key: key)
            for _ in 0..<2 {
                let answer = try await session.send(HTTPTransportRequest(method: "GET", url: api.items))
                #expect(answer.status == 200)
                #expect(String(decoding: answer.body, as: UTF8.self).contains(#""jkt":"\#(key.thumbprint)""#))
            }
            // htu is compared without the query.
            var query = URLComponents(url: api.items, resolvingAgainstBaseURL: false)!
            query.query = "page=2"
            #expect(try await session.send(HTTPTransportRequest(method: "GET", url: query.url!)).status == 200)
        }
    }

    @Test("each proof rule refuses its bad input: 401 invalid_dpop_proof in the DPoP challenge")
    func proofRules() async throws {
        try await TestAPI.with { api in
            let key = DPoPKey()
            let token = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(key.thumbprint)])]))
            let items = api.items
            let htu = items.absoluteString
            #if AsyncHTTPClient && os(Linux)
            // AsyncHTTPClientTransport sends the two fields as they are: the one-proof rule refuses them.
            let twoProofs = "exactly one DPoP proof is allowed"
            #else
            // URLSession joins the two fields into one value, which is no JWS.
            let twoProofs = "the DPoP proof is not a JWS"
            #endif
            let cases: [(String, [String], String)] = [
                ("no proof", [], "a DPoP-bound access token needs a DPoP proof"),
                ("wrong htm", [try key.proof(method: "POST", url: items, accessToken: token)], "the DPoP proof's htm is not GET"),
                (
                    "wrong htu", [try key.proof(method: "GET", url: api.base.appending(path: "api/other"), accessToken: token)],
                    "the DPoP proof's htu is not \(htu)"
                ),
                (
                    "stale iat", [try key.proof(method: "GET", url: items, accessToken: token, now: Date().addingTimeInterval(-300))],
                    "the DPoP proof's iat is missing or more than 60 s from now"
                ),
                (
                    "wrong ath", [try key.proof(method: "GET", url: items, accessToken: "another-token")],
                    "the DPoP proof's ath does not match the access token"
                ),
                ("no ath", [try key.proof(method: "GET", url: items)], "the DPoP proof's ath does not match the access token"),
                (
                    "wrong key", [try DPoPKey().proof(method: "GET", url: items, accessToken: token)],
                    "the DPoP proof's key is not the token's (cnf.jkt)"
                ),
                (
                    "two proofs",
                    [
                        try key.proof(method: "GET", url: items, accessToken: token),
                        try key.proof(method: "GET", url: items, accessToken: token),
                    ],
                    twoProofs
                ),
                ("not a JWS", ["abc"], "the DPoP proof is not a JWS"),
            ]
            for (name, proofs, description) in cases {
                let response = try await api.send(authorization: "DPoP \(token)", dpop: proofs)
                #expect(response.status == 401, "\(name)")
                #expect(
                    TestAPI.challenges(response) == api.expected(error: "invalid_dpop_proof", description: description, scheme: "DPoP"),
                    "\(name)")
            }
            // Replay: the same proof twice.
            let proof = try key.proof(method: "GET", url: items, accessToken: token)
            #expect(try await api.send(authorization: "DPoP \(token)", dpop: [proof]).status == 200)
            let replayed = try await api.send(authorization: "DPoP \(token)", dpop: [proof])
            #expect(replayed.status == 401)
            #expect(
                TestAPI.challenges(replayed)
                    == api.expected(
                        error: "invalid_dpop_proof", description: "the DPoP proof was already used (jti replay)", scheme: "DPoP"))
        }
    }

    @Test("a request path no URI can hold ({ } | \" \\ ^ ` < >, a broken %) is 400 invalid_request on a path route, never a trap")
    func pathsNoURIHolds() async throws {
        try await TestAPI.with { api in
            let key = DPoPKey()
            let token = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(key.thumbprint)])]))
            let paths = [
                "/api/{x}/me", "/api/%zz/me", "/api/%/me", "/api/a%2/me", "/api/a|b/me", "/api/a^b/me", "/api/a`b/me",
                "/api/\"x\"/me", "/api/a\\b/me", "/api/<x>/me", "/api/}/me",
            ]
            for path in paths {
                let proof = try key.proof(method: "GET", url: api.base.appending(path: "api/x/me"), accessToken: token)
                let response = try await RawHTTP.send(
                    port: api.base.port ?? 0, method: "GET", target: path, headers: [("Authorization", "DPoP \(token)"), ("DPoP", proof)],
                    body: "")
                #expect(response.status == 400, "\(path)")
                #expect(
                    TestAPI.challenges(response)
                        == api.expected(error: "invalid_request", description: "the request path is not a valid URI path", scheme: "DPoP"),
                    "\(path)")
            }
            // The API is still up, and a valid path with escapes is served.
            let escaped = URL(string: api.base.absoluteString + "/api/%7Bx%7D/me")!
            let good = try await api.send(
                "GET", escaped, authorization: "DPoP \(token)", dpop: [try key.proof(method: "GET", url: escaped, accessToken: token)])
            #expect(good.status == 200)
        }
    }

    @Test("a DPoP-bound token sent as Bearer, and an unbound token sent as DPoP, are invalid_token")
    func schemeAndBinding() async throws {
        try await TestAPI.with { api in
            let key = DPoPKey()
            let bound = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(key.thumbprint)])]))
            let asBearer = try await api.send(
                authorization: "Bearer \(bound)", dpop: [try key.proof(method: "GET", url: api.items, accessToken: bound)])
            #expect(asBearer.status == 401)
            #expect(
                TestAPI.challenges(asBearer)
                    == api.expected(
                        error: "invalid_token", description: "the access token is DPoP-bound: send it with the DPoP scheme and a proof"))
            let unbound = try TestKeys.sign(api.claims())
            let asDPoP = try await api.send(
                authorization: "DPoP \(unbound)", dpop: [try key.proof(method: "GET", url: api.items, accessToken: unbound)])
            #expect(asDPoP.status == 401)
            #expect(
                TestAPI.challenges(asDPoP)
                    == api.expected(
                        error: "invalid_token", description: "the access token is not DPoP-bound: send it with the Bearer scheme",
                        scheme: "DPoP"))
        }
    }

    @Test(
        "a cnf without jkt (another binding, or not an object) is refused, not taken as a bearer token",
        arguments: [
            JSONMemberValue.object(["x5t#S256": .string("bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2")]), .object([:]), .string("jkt"),
            .array([.object(["jkt": .string("x")])]), .bool(true),
        ])
    func confirmationWithoutJKT(_ cnf: JSONMemberValue) async throws {
        try await TestAPI.with { api in
            let token = try TestKeys.sign(api.claims(["cnf": cnf]))
            for scheme in ["Bearer", "DPoP"] {
                let proof = try DPoPKey().proof(method: "GET", url: api.items, accessToken: token)
                let response = try await api.send(authorization: "\(scheme) \(token)", dpop: scheme == "DPoP" ? [proof] : [])
                #expect(response.status == 401)
                #expect(
                    TestAPI.challenges(response)
                        == api.expected(
                            error: "invalid_token", description: "the token's cnf has no jkt: its binding cannot be checked here",
                            scheme: scheme))
            }
        }
    }

    @Test("an API that requires DPoP refuses Bearer tokens and offers only the DPoP challenge")
    func requiresDPoP() async throws {
        try await TestAPI.with(TestAPI.Changes(requiresDPoP: true)) { api in
            let response = try await api.send(authorization: "Bearer \(try TestKeys.sign(api.claims()))")
            #expect(response.status == 401)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(error: "invalid_token", description: "this API accepts DPoP-bound access tokens only", bearer: false))
        }
    }

    @Test("server nonces: a proof without the nonce gets use_dpop_nonce and DPoP-Nonce; AuthSession retries with it")
    func nonces() async throws {
        try await TestAPI.with(TestAPI.Changes(dpopNonceLifetime: 300)) { api in
            let key = DPoPKey()
            let token = try TestKeys.sign(api.claims(["cnf": .object(["jkt": .string(key.thumbprint)])]))
            let response = try await api.send(
                authorization: "DPoP \(token)", dpop: [try key.proof(method: "GET", url: api.items, accessToken: token)])
            #expect(response.status == 401)
            #expect(
                TestAPI.challenges(response)
                    == api.expected(error: "use_dpop_nonce", description: "the DPoP proof must carry the server's nonce", scheme: "DPoP"))
            let nonce = try #require(response.header("DPoP-Nonce"))
            let withNonce = try await api.send(
                authorization: "DPoP \(token)", dpop: [try key.proof(method: "GET", url: api.items, accessToken: token, nonce: nonce)])
            #expect(withNonce.status == 200)
            let session = try await Self.boundSession(api, token: token, key: DPoPKey())
            // Another key: the nonce retry happens, then the binding refuses it.
            #expect(try await session.send(HTTPTransportRequest(method: "GET", url: api.items)).status == 401)
            let good = try await Self.boundSession(api, token: token, key: key)
            #expect(try await good.send(HTTPTransportRequest(method: "GET", url: api.items)).status == 200)
        }
    }
}
#endif
