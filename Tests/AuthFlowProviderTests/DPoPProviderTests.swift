#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

/// DPoP-bound tokens from the embedded provider (RFC 9449), and each proof rule.
@Suite("DPoP at the embedded provider")
struct DPoPProviderTests {
    static func with<T>(nonces: Bool = false, _ body: (EmbeddedProvider) async throws -> T) async throws -> T {
        var configuration = Fixture.configuration()
        configuration.requiresDPoPNonce = nonces
        return try await Fixture.with(configuration, body)
    }

    static func dpopClient(_ provider: EmbeddedProvider, _ binding: DPoPBinding = DPoPBinding()) async throws -> OAuthClient {
        var client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
        client.dpop = binding
        return client
    }

    static func userinfo(_ provider: EmbeddedProvider, scheme: String, token: String, proof: String?) async throws -> HTTPTransportResponse
    {
        var headers: [(name: String, value: String)] = [("Authorization", "\(scheme) \(token)")]
        if let proof { headers.append(("DPoP", proof)) }
        return try await Wire(provider: provider).get("/userinfo", headers: headers)
    }

    @Test("a DPoP sign-in gets DPoP-bound tokens (cnf.jkt); refresh needs the same key; userinfo needs the DPoP scheme and a proof")
    func boundTokens() async throws {
        try await Self.with { provider in
            let binding = DPoPBinding()
            let client = try await Self.dpopClient(provider, binding)
            let credentials = try await client.exchange(authorize(client).1)
            #expect(credentials.token.tokenType == "DPoP")
            let introspection = try await Wire(provider: provider).introspect(credentials.accessToken)
            #expect(introspection["cnf"] == .object(["jkt": .string(binding.key.thumbprint)]))
            #expect(introspection["token_type"] == .string("DPoP"))

            let userinfo = provider.issuer.url.appendingPathComponent("userinfo")
            let good = try binding.proof(method: "GET", url: userinfo, accessToken: credentials.accessToken)
            #expect(try await Self.userinfo(provider, scheme: "DPoP", token: credentials.accessToken, proof: good).status == 200)
            let asBearer = try await Self.userinfo(provider, scheme: "Bearer", token: credentials.accessToken, proof: nil)
            #expect(asBearer.status == 401 && asBearer.header("WWW-Authenticate")?.hasPrefix("DPoP") == true)
            let noATH = try binding.proof(method: "GET", url: userinfo)
            let missingATH = try await Self.userinfo(provider, scheme: "DPoP", token: credentials.accessToken, proof: noATH)
            #expect(Wire.json(missingATH)["error_description"] == .string("the DPoP proof's ath does not match the access token"))
            let thief = try DPoPKey().proof(method: "GET", url: userinfo, accessToken: credentials.accessToken)
            let stolen = try await Self.userinfo(provider, scheme: "DPoP", token: credentials.accessToken, proof: thief)
            #expect(stolen.status == 401 && Wire.json(stolen)["error_description"] == .string("the DPoP proof's key is not the token's"))

            let info = try await client.userInfo(
                accessToken: credentials.accessToken, tokenType: credentials.token.tokenType,
                expectedSubject: credentials.subject)
            #expect(info.subject == credentials.subject, "the engine's userinfo call sends the DPoP scheme with a proof")
            let keyless = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let noKey = await #expect(throws: AuthFlowError.self) {
                try await keyless.userInfo(accessToken: credentials.accessToken, tokenType: "DPoP", expectedSubject: nil)
            }
            #expect(noKey?.category == .configuration && noKey?.message == "the access token is DPoP-bound and this client has no DPoP key")

            let other = try await Self.dpopClient(provider)
            let wrongKey = await #expect(throws: AuthFlowError.self) { try await other.refresh(credentials) }
            #expect(wrongKey?.oauth?.errorDescription == "the refresh token is bound to another DPoP key")
            let plain = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let noProof = await #expect(throws: AuthFlowError.self) { try await plain.refresh(credentials) }
            #expect(noProof?.oauth?.errorDescription == "the refresh token is DPoP-bound; a DPoP proof is required")
            let refreshed = try await client.refresh(credentials)
            #expect(refreshed.token.tokenType == "DPoP")
        }
    }

    /// Approves `userCode` on the provider's verification page.
    static func approve(_ provider: EmbeddedProvider, _ userCode: String) async throws {
        let approved = try await Wire(provider: provider).post("/device", [("user_code", userCode), ("decision", "allow")])
        #expect(approved.status == 200)
    }

    @Test(
        "a DPoP client's device grant gets DPoP-bound tokens (with server nonces); the bound token is refused as Bearer and with another key"
    )
    func deviceTokensAreBound() async throws {
        try await Self.with(nonces: true) { provider in
            let binding = DPoPBinding()
            let client = try await Self.dpopClient(provider, binding)
            let pending = try await client.startDeviceAuthorization(scopes: ["openid", "profile", "offline_access"])
            try await Self.approve(provider, pending.userCode)
            let credentials = try await pending.credentials()
            #expect(credentials.token.tokenType == "DPoP")
            let introspection = try await Wire(provider: provider).introspect(credentials.accessToken)
            #expect(introspection["cnf"] == .object(["jkt": .string(binding.key.thumbprint)]))

            let userinfo = provider.issuer.url.appendingPathComponent("userinfo")
            let asBearer = try await Self.userinfo(provider, scheme: "Bearer", token: credentials.accessToken, proof: nil)
            #expect(asBearer.status == 401 && asBearer.header("WWW-Authenticate")?.hasPrefix("DPoP") == true)
            // Another key, with the server's nonce: refused for the key.
            let thief = DPoPBinding()
            let first = try await Self.userinfo(
                provider, scheme: "DPoP", token: credentials.accessToken,
                proof: try thief.proof(method: "GET", url: userinfo, accessToken: credentials.accessToken))
            #expect(thief.noteNonce(in: first, from: userinfo), "the provider asks for its nonce first")
            let stolen = try await Self.userinfo(
                provider, scheme: "DPoP", token: credentials.accessToken,
                proof: try thief.proof(method: "GET", url: userinfo, accessToken: credentials.accessToken))
            #expect(stolen.status == 401 && Wire.json(stolen)["error_description"] == .string("the DPoP proof's key is not the token's"))
            let info = try await client.userInfo(
                accessToken: credentials.accessToken, tokenType: credentials.token.tokenType,
                expectedSubject: credentials.subject)
            #expect(info.subject == credentials.subject)

            let plain = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo")
            let noProof = await #expect(throws: AuthFlowError.self) { try await plain.refresh(credentials) }
            #expect(noProof?.oauth?.errorDescription == "the refresh token is DPoP-bound; a DPoP proof is required")
            #expect(try await client.refresh(credentials).token.tokenType == "DPoP")
        }
    }

    @Test("dpop_jkt binds a device code to the key: a poll without a proof or with another key is invalid_grant")
    func deviceCodeBinding() async throws {
        try await Self.with { provider in
            let client = try await Self.dpopClient(provider)
            let pending = try await client.startDeviceAuthorization(scopes: ["openid"])
            try await Self.approve(provider, pending.userCode)
            let form = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", pending.response.deviceCode),
                ("client_id", "authflow-demo"),
            ]
            let bare = Wire.json(try await Wire(provider: provider).post("/token", form))
            #expect(bare["error"] == .string("invalid_grant"))
            #expect(
                bare["error_description"]
                    == .string("the device authorization request named a DPoP key (dpop_jkt); a DPoP proof is required"))
            let tokenURL = provider.issuer.url.appendingPathComponent("token")
            let wrong = try await URLSessionTransport().send(
                HTTPTransportRequest(
                    method: "POST", url: tokenURL,
                    headers: [
                        ("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", try DPoPKey().proof(method: "POST", url: tokenURL)),
                    ],
                    body: Data(FormEncoding.encode(form).utf8), timeout: 10))
            #expect(Wire.json(wrong)["error"] == .string("invalid_grant"))
            #expect(
                Wire.json(wrong)["error_description"]
                    == .string("the DPoP proof's key is not the dpop_jkt of the device authorization request"))
            // Neither refusal used the code up: the right key still redeems it.
            #expect(try await pending.credentials().token.tokenType == "DPoP")
        }
    }

    @Test("a DPoP client's client-credentials token is DPoP-bound (with server nonces); without a key it stays Bearer")
    func clientCredentialsAreBound() async throws {
        try await Self.with(nonces: true) { provider in
            let binding = DPoPBinding()
            var client = try await OAuthClient(
                issuer: provider.issuer, clientID: Fixture.backend.id,
                authentication: .clientSecretBasic(secret: "demo-secret"))
            let bearer = try await client.clientCredentials()
            #expect(bearer.token.tokenType == "Bearer")
            #expect(try await Wire(provider: provider).introspect(bearer.accessToken)["cnf"] == nil)
            client.dpop = binding
            let bound = try await client.clientCredentials()
            #expect(bound.token.tokenType == "DPoP" && bound.token.refreshToken == nil && bound.idToken == nil)
            let introspection = try await Wire(provider: provider).introspect(bound.accessToken)
            #expect(introspection["cnf"] == .object(["jkt": .string(binding.key.thumbprint)]))
            #expect(introspection["token_type"] == .string("DPoP"))
        }
    }

    @Test("dpop_jkt binds the code to the key: another key or none is invalid_grant")
    func codeBinding() async throws {
        try await Self.with { provider in
            let client = try await Self.dpopClient(provider)
            let (_, grant) = try await authorize(client)
            let other = try await Self.dpopClient(provider)
            let error = await #expect(throws: AuthFlowError.self) { try await other.exchange(grant) }
            #expect(error?.oauth?.error == "invalid_grant")
            #expect(error?.oauth?.errorDescription == "the DPoP proof's key is not the dpop_jkt of the authorization request")
        }
    }

    @Test("with server nonces the engine retries once and succeeds")
    func nonces() async throws {
        try await Self.with(nonces: true) { provider in
            let client = try await Self.dpopClient(provider)
            let credentials = try await client.exchange(authorize(client).1)
            #expect(credentials.token.tokenType == "DPoP")
            _ = try await client.refresh(credentials)
            let response = try await Wire(provider: provider).post(
                "/token",
                [
                    ("grant_type", "refresh_token"), ("client_id", "authflow-demo"),
                    ("refresh_token", "x"),
                ])
            #expect(response.status == 400) // no proof at all: the ordinary grant rules apply
        }
    }

    @Test("a session sends resource requests with a fresh proof, answers the resource server's nonce, and refreshes once on invalid_token")
    func sessionSend() async throws {
        try await Self.with(nonces: true) { provider in
            let client = try await Self.dpopClient(provider)
            let credentials = try await client.exchange(authorize(client).1)
            let session = AuthSession(client: client, credentials: credentials)
            let userinfo = try #require(client.metadata.userinfoEndpoint)
            let first = try await session.send(HTTPTransportRequest(method: "GET", url: userinfo))
            #expect(first.status == 200)
            #expect(Wire.json(first)["sub"] == .string("demo"))
            let introspection = Wire(provider: provider)
            _ = try await introspection.post("/revoke", [("token", credentials.accessToken), ("client_id", "authflow-demo")])
            let afterRevocation = try await session.send(HTTPTransportRequest(method: "POST", url: userinfo))
            #expect(afterRevocation.status == 200) // refreshed once with a proof, then retried
            #expect(try await session.freshCredentials().accessToken != credentials.accessToken)
        }
    }

    /// The embedded provider's own transport, keeping every request it sends.
    actor RecordingTransport: HTTPTransport {
        let inner = URLSessionTransport()
        private(set) var requests: [HTTPTransportRequest] = []
        func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
            requests.append(request)
            return try await inner.send(request)
        }
    }

    @Test("revoking DPoP-bound tokens sends a proof of the client's key to the revocation endpoint; a Bearer token gets none")
    func revocationCarriesAProof() async throws {
        try await Self.with(nonces: true) { provider in
            let recorder = RecordingTransport()
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo", transport: recorder)
            let binding = DPoPBinding()
            client.dpop = binding
            let credentials = try await client.exchange(authorize(client).1)
            #expect(credentials.token.tokenType == "DPoP")
            try await client.revokeAll(credentials)
            let endpoint = try #require(client.metadata.revocationEndpoint)
            let revocations = await recorder.requests.filter { $0.url == endpoint }
            #expect(revocations.count == 2)
            for request in revocations {
                let proof = try #require(request.header("DPoP"), "a revocation request without a DPoP proof")
                let parts = proof.split(separator: ".").map(String.init)
                func json(_ part: String) throws -> [String: Any] {
                    let bytes = try #require(Base64URL.decode(part))
                    let object = try JSONSerialization.jsonObject(with: Data(bytes))
                    return try #require(object as? [String: Any])
                }
                let claims = try json(parts[1])
                let header = try json(parts[0])
                let jwk = try #require(header["jwk"] as? [String: Any])
                #expect(claims["htm"] as? String == "POST" && claims["htu"] as? String == endpoint.absoluteString)
                #expect(claims["ath"] == nil)
                #expect(
                    jwk["x"] as? String == binding.key.publicJWK["x"]?.stringValue
                        && jwk["y"] as? String == binding.key.publicJWK["y"]?.stringValue)
            }
            let wire = Wire(provider: provider)
            #expect(try await wire.introspect(credentials.accessToken)["active"] == .bool(false))
            #expect(try await wire.introspect(try #require(credentials.token.refreshToken))["active"] == .bool(false))

            // A token the server issued as Bearer (a downgrade the client allowed) is revoked without a proof.
            let before = await recorder.requests.count
            try await client.revoke("some-bearer-token", hint: .accessToken, tokenType: "Bearer")
            let bearer = await recorder.requests.dropFirst(before).filter { $0.url == endpoint }
            #expect(bearer.count == 1 && bearer.allSatisfy { $0.header("DPoP") == nil })
        }
    }

    @Test("a private_key_jwt client's nonce retry carries a fresh client assertion (its jti is single-use)")
    func nonceRetryWithClientAssertion() async throws {
        let key = try ClientAssertionKey.generate(algorithm: "ES256", keyID: "dpop-jwt")
        var configuration = Fixture.configuration()
        configuration.requiresDPoPNonce = true
        configuration.clients.append(
            ProviderClient(
                id: "dpop-jwt", authentication: .privateKeyJWT, redirectURIs: ["http://127.0.0.1/callback"],
                jwks: .object(["keys": .array([.object(key.publicJWK)])])))
        let provider = try await EmbeddedProvider.start(configuration)
        do {
            var client = try await OAuthClient(issuer: provider.issuer, clientID: "dpop-jwt", authentication: .privateKeyJWT(key: key))
            client.dpop = DPoPBinding()
            let credentials = try await client.exchange(authorize(client, redirect: "http://127.0.0.1/callback").1)
            #expect(credentials.token.tokenType == "DPoP")
            await provider.stop()
        } catch {
            await provider.stop()
            throw error
        }
    }

    /// Posts a refresh grant with `proof`; returns the error and description.
    static func tokenRequest(_ provider: EmbeddedProvider, proof: String) async throws -> (String?, String?, HTTPTransportResponse) {
        let url = Wire(provider: provider).url("/token")
        let response = try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: url,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", proof)],
                body: Data(
                    FormEncoding.encode([("grant_type", "refresh_token"), ("client_id", "authflow-demo"), ("refresh_token", "unknown")])
                        .utf8)))
        let json = Wire.json(response)
        return (json["error"]?.stringValue, json["error_description"]?.stringValue, response)
    }

    @Test("htu is compared normalised: scheme and host case, default port, dot segments, query and fragment ignored; userinfo refused")
    func normalisedTarget() async throws {
        try await Self.with { provider in
            let key = DPoPKey()
            let port = provider.issuer.url.port!
            for variant in [
                "HTTP://127.0.0.1:\(port)/token", "http://127.0.0.1:\(port)/x/../token", "http://127.0.0.1:\(port)/./%74oken",
                "http://127.0.0.1:0\(port)/token?q=1#f",
            ] {
                let now = Date().timeIntervalSince1970.rounded(.down)
                let claims: [String: JSONMemberValue] = [
                    "htm": .string("POST"), "htu": .string(variant), "iat": .number(now),
                    "jti": .string(UUID().uuidString),
                ]
                let signer = try ClientAssertionKey.generate(algorithm: "ES256")
                let proof = try ClientAssertion.compact(
                    header: ["typ": .string("dpop+jwt"), "jwk": .object(signer.publicJWK)],
                    claims: claims, signer: .key(signer))
                let (error, description, _) = try await Self.tokenRequest(provider, proof: proof)
                #expect(error == "invalid_grant", "\(variant): \(description ?? "")") // the proof passed; the refresh token is unknown
            }
            let (error, _, _) = try await Self.tokenRequest(
                provider, proof: try key.proof(method: "POST", url: URL(string: "http://127.0.0.1:\(port)/tokens")!))
            #expect(error == "invalid_dpop_proof")
            // Userinfo in htu is refused, not matched with it stripped.
            let now = Date().timeIntervalSince1970.rounded(.down)
            let signer = try ClientAssertionKey.generate(algorithm: "ES256")
            let withUserinfo = try ClientAssertion.compact(
                header: ["typ": .string("dpop+jwt"), "jwk": .object(signer.publicJWK)],
                claims: [
                    "htm": .string("POST"), "htu": .string("http://u:p@127.0.0.1:\(port)/token"),
                    "iat": .number(now), "jti": .string(UUID().uuidString),
                ],
                signer: .key(signer))
            let (userinfoError, userinfoDescription, _) = try await Self.tokenRequest(provider, proof: withUserinfo)
            #expect(
                userinfoError == "invalid_dpop_proof"
                    && userinfoDescription == "the DPoP proof's htu is not \(provider.issuer.identifier)/token")
        }
    }

    @Test("each proof rule refuses its bad proof with invalid_dpop_proof")
    func proofRules() async throws {
        try await Self.with { provider in
            let key = DPoPKey()
            let token = Wire(provider: provider).url("/token")
            func expectRefused(_ proof: String, _ message: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let (error, description, _) = try await Self.tokenRequest(provider, proof: proof)
                #expect(error == "invalid_dpop_proof", sourceLocation: sourceLocation)
                #expect(description == message, sourceLocation: sourceLocation)
            }
            try await expectRefused(try key.proof(method: "GET", url: token), "the DPoP proof's htm is not POST")
            try await expectRefused(
                try key.proof(method: "POST", url: Wire(provider: provider).url("/userinfo")),
                "the DPoP proof's htu is not \(provider.issuer.identifier)/token")
            try await expectRefused(
                try key.proof(method: "POST", url: token, now: Date().addingTimeInterval(-300)),
                "the DPoP proof's iat is missing or more than 60 s from now")
            let once = try key.proof(method: "POST", url: token)
            let first = try await Self.tokenRequest(provider, proof: once)
            #expect(first.0 == "invalid_grant") // the proof passed; the refresh token is unknown
            try await expectRefused(once, "the DPoP proof was already used (jti replay)")

            let signer = try ClientAssertionKey.generate(algorithm: "ES256")
            let now = Date().timeIntervalSince1970.rounded(.down)
            let claims: [String: JSONMemberValue] = [
                "htm": .string("POST"), "htu": .string(token.absoluteString), "iat": .number(now),
                "jti": .string(UUID().uuidString),
            ]
            let jwk = JSONMemberValue.object(signer.publicJWK)
            try await expectRefused(
                try ClientAssertion.compact(header: ["jwk": jwk], claims: claims, signer: .key(signer)),
                "the DPoP proof's typ must be dpop+jwt")
            try await expectRefused(
                try ClientAssertion.compact(header: ["typ": .string("dpop+jwt")], claims: claims, signer: .key(signer)),
                "the DPoP proof's header must carry a public jwk")
            var withPrivate = signer.publicJWK
            withPrivate["d"] = .string("AAAA")
            try await expectRefused(
                try ClientAssertion.compact(
                    header: ["typ": .string("dpop+jwt"), "jwk": .object(withPrivate)],
                    claims: claims, signer: .key(signer)),
                "the DPoP proof's jwk is not a public key: it carries the private member \"d\"")
            // RSA: any private member, q (which factors n) among them; a symmetric key never.
            let rsa = try ClientAssertionKey.generate(algorithm: "RS256")
            for member in ["q", "dp", "dq", "qi", "oth"] {
                var jwk = rsa.publicJWK
                jwk[member] = .string("AQAB")
                try await expectRefused(
                    try ClientAssertion.compact(
                        header: ["typ": .string("dpop+jwt"), "jwk": .object(jwk)],
                        claims: claims, signer: .key(rsa)),
                    "the DPoP proof's jwk is not a public key: it carries the private member \"\(member)\"")
            }
            try await expectRefused(
                try ClientAssertion.compact(
                    header: ["typ": .string("dpop+jwt"), "jwk": .object(["kty": .string("oct"), "k": .string("AAAA")])],
                    claims: claims, signer: .key(signer)),
                "the DPoP proof's jwk is not a public key: it is a symmetric key (kty oct)")
            // A kid beside the jwk: refused for what it is, not as a bad signature.
            try await expectRefused(
                try ClientAssertion.compact(
                    header: ["typ": .string("dpop+jwt"), "jwk": jwk, "kid": .string("k1")],
                    claims: claims, signer: .key(signer)),
                "the DPoP proof's header must not carry a kid: its key is the jwk")
            let impostor = try ClientAssertionKey.generate(algorithm: "ES256")
            try await expectRefused(
                try ClientAssertion.compact(
                    header: ["typ": .string("dpop+jwt"), "jwk": jwk], claims: claims,
                    signer: .key(impostor)),
                "the DPoP proof's signature is invalid")
            try await expectRefused(
                try ClientAssertion.compact(
                    header: ["typ": .string("dpop+jwt"), "jwk": jwk], claims: claims,
                    signer: .secret("hmac-key")),
                "the DPoP proof's algorithm HS256 is not accepted")
        }
        try await Self.with(nonces: true) { provider in
            let proof = try DPoPKey().proof(method: "POST", url: Wire(provider: provider).url("/token"))
            let (error, _, response) = try await Self.tokenRequest(provider, proof: proof)
            #expect(error == "use_dpop_nonce")
            #expect(response.header("DPoP-Nonce")?.isEmpty == false)
        }
    }
}
#endif
