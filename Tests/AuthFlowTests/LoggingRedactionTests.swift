import AuthFlowTestSupport
import Foundation
import Logging
import Testing

@testable import AuthFlow

/// A user agent that answers the authorization request itself.
struct FakeUserAgent: AuthorizationUserAgent {
    let seen: Locked<AuthorizationRequest?>
    let code: String
    var state: String?

    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        seen.withLock { $0 = request }
        let query = FormEncoding.encode([("code", code), ("state", state ?? request.state), ("iss", TestIDP.issuer)])
        return URL(string: "\(request.redirectURI.absoluteString)?\(query)")!
    }
}

@Suite struct LoggingRedactionTests {
    static let code = "CODE-SECRET-7f3a9"
    static let clientSecret = "CLIENT-SECRET-x8Q2"
    static let accessToken = "ACCESS-TOKEN-SECRET-k2P9"
    static let refreshToken = "REFRESH-TOKEN-SECRET-m4Z1"

    @Test func fullSignInLogsNoSecrets() async throws {
        let log = LogCapture()
        let logger = log.logger()
        let seen = Locked<AuthorizationRequest?>(nil)
        let idToken = Locked<String>("")
        let discovery = """
            {"issuer":"\(TestIDP.issuer)","authorization_endpoint":"https://idp.example/authorize","token_endpoint":"https://idp.example/token",\
            "jwks_uri":"\(TestIDP.jwksURI)","authorization_response_iss_parameter_supported":true,"code_challenge_methods_supported":["S256"]}
            """
        let jwks = jwksJSON([SigningKey.ec256.jwk(kid: "ec1")])
        let transport = ScriptedTransport { request in
            switch request.url.absoluteString {
            case "https://idp.example/.well-known/openid-configuration": return .json(discovery)
            case TestIDP.jwksURI: return .json(jwks)
            case "https://idp.example/token":
                let nonce = seen.current?.nonce ?? ""
                let now = Date().timeIntervalSince1970
                let token = try jws(
                    TestIDP.claims(["nonce": .string(nonce), "exp": .number(now + 300), "iat": .number(now)]),
                    key: .ec256, alg: "ES256", kid: "ec1")
                idToken.withLock { $0 = token }
                return .json(
                    #"{"access_token":"\#(Self.accessToken)","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(Self.refreshToken)","id_token":"\#(token)"}"#
                )
            default: return HTTPTransportResponse(status: 404)
            }
        }
        let client = try await OAuthClient(
            issuer: Issuer(TestIDP.issuer), clientID: TestIDP.clientID,
            authentication: .clientSecretPost(secret: Self.clientSecret), transport: transport, logger: logger)
        let credentials = try await client.signIn(
            redirectURI: url("http://127.0.0.1:8765/callback"), scopes: ["openid", "profile"],
            userAgent: FakeUserAgent(seen: seen, code: Self.code))
        #expect(credentials.accessToken == Self.accessToken)
        #expect(credentials.subject == "user-1")

        let request = try #require(seen.current)
        let nonce = try #require(request.nonce)
        let tokenRequest = try #require(transport.requests.first { $0.url.path == "/token" })
        let body = formDictionary(String(decoding: tokenRequest.body ?? Data(), as: UTF8.self))
        #expect(body["code"] == Self.code)
        #expect(body["client_secret"] == Self.clientSecret)
        #expect(body["code_verifier"] == request.pkce.verifier)

        var secrets = [
            Self.code, Self.clientSecret, Self.accessToken, Self.refreshToken, request.state, nonce, request.pkce.verifier, idToken.current,
        ]
        // Parts of the ID token (its signature is unique to this run).
        secrets += idToken.current.split(separator: ".").map(String.init).suffix(1)
        let lines = log.lines
        #expect(lines.count >= 5, "expected trace/debug logging of the flow, got \(lines)")
        for line in lines {
            for secret in secrets where !secret.isEmpty {
                #expect(!line.contains(secret), "log line leaks a secret: \(line)")
            }
        }
        let descriptions = ["\(credentials)", "\(credentials.token)", "\(request)", "\(request.pkce)", "\(client.authentication)"]
        for text in descriptions {
            for secret in secrets where !secret.isEmpty {
                #expect(!text.contains(secret), "description leaks a secret: \(text)")
            }
        }
    }

    @Test func errorsOnTheWayLogAndDescribeNoSecrets() async throws {
        let log = LogCapture()
        let logger = log.logger()
        let transport = ScriptedTransport { request in
            .json(#"{"error":"invalid_grant","error_description":"bad code"}"#, status: 400)
        }
        let client = try OAuthClient(
            metadata: metadata(), clientID: "app", authentication: .clientSecretBasic(secret: Self.clientSecret),
            transport: transport, logger: logger)
        let request = try client.authorizationRequest(redirectURI: url("http://127.0.0.1:8765/callback"), scopes: ["openid"])
        let nonce = try #require(request.nonce)
        var errors: [AuthFlowError] = []

        // Forged state.
        if let error = expectError(
            .stateMismatch,
            { try request.validateCallback(url("http://127.0.0.1:8765/callback?code=\(Self.code)&state=forged-\(request.state)")) })
        {
            errors.append(error)
        }
        // Wrong issuer.
        if let error = expectError(
            .issuerMismatch,
            {
                try request.validateCallback(
                    url("http://127.0.0.1:8765/callback?code=\(Self.code)&state=\(request.state)&iss=https%3A%2F%2Fevil.example"))
            })
        {
            errors.append(error)
        }
        // Token endpoint refuses the code.
        let grant = try request.validateCallback(url("http://127.0.0.1:8765/callback?code=\(Self.code)&state=\(request.state)"))
        if let error = await expectError(.oauthError, { try await client.exchange(grant) }) { errors.append(error) }
        // ID token with the wrong nonce.
        let idp = try TestIDP(keys: [SigningKey.ec256.jwk(kid: "ec1")])
        let idToken = try jws(TestIDP.claims(["nonce": .string("other")]), key: .ec256, alg: "ES256", kid: "ec1")
        if let error = await expectError(
            .idTokenInvalid, reason: .nonce,
            {
                try await idp.verifier().verify(
                    idToken, rules: TestIDP.rules(nonce: nonce), accessToken: Self.accessToken, now: TestIDP.now)
            })
        {
            errors.append(error)
        }

        #expect(errors.count == 4)
        let secrets = [Self.code, Self.clientSecret, Self.accessToken, request.state, nonce, request.pkce.verifier, idToken]
        for error in errors {
            for text in [
                error.description, error.message, error.localizedDescription, error.recoverySuggestion ?? "", error.debugDescription,
            ] {
                for secret in secrets { #expect(!text.contains(secret), "error text leaks a secret: \(text)") }
            }
        }
        #expect(!log.lines.isEmpty)
        for line in log.lines {
            for secret in secrets { #expect(!line.contains(secret), "log line leaks a secret: \(line)") }
        }
        #expect(!"\(grant)".contains(Self.code))
    }
}
