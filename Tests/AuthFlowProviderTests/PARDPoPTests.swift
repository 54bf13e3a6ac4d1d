#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

/// DPoP at the pushed authorization request endpoint (RFC 9449 §10.1): a
/// proof in the `DPoP` header binds the code to its key like `dpop_jkt`,
/// both may be sent, and a `dpop_jkt` naming another key is refused.
@Suite("DPoP at the PAR endpoint")
struct PARDPoPTests {
    static let redirect = "http://127.0.0.1:9/callback"

    /// Pushes a request for the public demo client with `proof` and `extra` parameters.
    static func push(
        _ provider: EmbeddedProvider, proof: String?, extra: [(String, String)] = [],
        pkce: AuthorizationRequest.PKCE
    ) async throws -> HTTPTransportResponse {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/x-www-form-urlencoded")]
        if let proof { headers.append(("DPoP", proof)) }
        let form: [(String, String)] =
            [
                ("client_id", "authflow-demo"), ("response_type", "code"), ("redirect_uri", redirect),
                ("scope", "openid"), ("state", "s"), ("code_challenge", pkce.challenge),
                ("code_challenge_method", "S256"),
            ] + extra
        return try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: provider.issuer.url.appendingPathComponent("par"),
                headers: headers, body: Data(FormEncoding.encode(form).utf8)))
    }

    /// The code the browser gets for a pushed request.
    static func code(_ provider: EmbeddedProvider, pushed: HTTPTransportResponse) async throws -> String {
        let uri = try #require(Wire.json(pushed)["request_uri"]?.stringValue)
        let location = try await HeadlessBrowser().redirectLocation(
            of: Wire(provider: provider).url(
                "/authorize",
                [
                    ("client_id", "authflow-demo"), ("request_uri", uri),
                ]))
        return try #require(Wire.parameters(of: location)["code"])
    }

    static func redeem(_ provider: EmbeddedProvider, code: String, pkce: AuthorizationRequest.PKCE, key: DPoPKey?) async throws -> [String:
        JSONMemberValue]
    {
        let token = provider.issuer.url.appendingPathComponent("token")
        var headers: [(name: String, value: String)] = [("Content-Type", "application/x-www-form-urlencoded")]
        if let key { headers.append(("DPoP", try key.proof(method: "POST", url: token))) }
        let form = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect), ("client_id", "authflow-demo"),
            ("code_verifier", pkce.verifier),
        ]
        return Wire.json(
            try await URLSessionTransport().send(
                HTTPTransportRequest(
                    method: "POST", url: token, headers: headers,
                    body: Data(FormEncoding.encode(form).utf8))))
    }

    @Test("a proof at PAR binds the code to its key: redeemed without a proof or with another key it is refused")
    func proofHeaderBindsTheCode() async throws {
        try await Fixture.with { provider in
            let key = DPoPKey()
            let pkce = AuthorizationRequest.PKCE()
            let par = provider.issuer.url.appendingPathComponent("par")
            let pushed = try await Self.push(provider, proof: try key.proof(method: "POST", url: par), pkce: pkce)
            #expect(pushed.status == 201)
            let code = try await Self.code(provider, pushed: pushed)
            let bearer = try await Self.redeem(provider, code: code, pkce: pkce, key: nil)
            #expect(bearer["error"] == .string("invalid_grant"))
            #expect(
                bearer["error_description"] == .string("the authorization request named a DPoP key (dpop_jkt); a DPoP proof is required"))

            let pkce2 = AuthorizationRequest.PKCE()
            let second = try await Self.push(provider, proof: try key.proof(method: "POST", url: par), pkce: pkce2)
            let code2 = try await Self.code(provider, pushed: second)
            let thief = try await Self.redeem(provider, code: code2, pkce: pkce2, key: DPoPKey())
            #expect(thief["error_description"] == .string("the DPoP proof's key is not the dpop_jkt of the authorization request"))

            let pkce3 = AuthorizationRequest.PKCE()
            let third = try await Self.push(provider, proof: try key.proof(method: "POST", url: par), pkce: pkce3)
            let token = try await Self.redeem(provider, code: try await Self.code(provider, pushed: third), pkce: pkce3, key: key)
            #expect(token["token_type"] == .string("DPoP"))
        }
    }

    @Test("dpop_jkt and a proof together: the same key is accepted, another key refused with invalid_dpop_proof")
    func bothMechanisms() async throws {
        try await Fixture.with { provider in
            let key = DPoPKey()
            let par = provider.issuer.url.appendingPathComponent("par")
            let same = try await Self.push(
                provider, proof: try key.proof(method: "POST", url: par), extra: [("dpop_jkt", key.thumbprint)],
                pkce: .init())
            #expect(same.status == 201)
            let other = try await Self.push(
                provider, proof: try key.proof(method: "POST", url: par), extra: [("dpop_jkt", DPoPKey().thumbprint)],
                pkce: .init())
            #expect(other.status == 400)
            #expect(Wire.json(other)["error"] == .string("invalid_dpop_proof"))
            #expect(
                Wire.json(other)["error_description"] == .string("dpop_jkt is not the thumbprint of the DPoP proof's key (RFC 9449 §10.1)"))
            let badProof = try await Self.push(
                provider, proof: try key.proof(method: "POST", url: provider.issuer.url.appendingPathComponent("token")),
                pkce: .init())
            #expect(badProof.status == 400 && Wire.json(badProof)["error"] == .string("invalid_dpop_proof"))
        }
    }
}
#endif
