import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `OAuthClient.userInfo(accessToken:expectedSubject:)` (OIDC Core §5.3).
@Suite struct UserInfoTests {
    static let userinfoURL = "https://idp.example/userinfo"
    /// A recognisable secret: it must never show up in an error.
    static let accessToken = "AT-very-secret-7f3a9c2e"

    /// A provider with a userinfo endpoint and a JWK Set holding `keys`; the
    /// userinfo answer comes from `userinfo`.
    struct Provider {
        let transport: ScriptedTransport
        let client: OAuthClient

        init(
            keys: [[String: JSONMemberValue]] = [SigningKey.ec256.jwk(kid: "ec1")], userinfoEndpoint: Bool = true,
            authentication: ClientAuthentication = .none,
            userinfo: @escaping @Sendable (HTTPTransportRequest) -> HTTPTransportResponse
        ) throws {
            let jwks = jwksJSON(keys)
            transport = ScriptedTransport { request in
                switch request.url.absoluteString {
                case TestIDP.jwksURI: return .json(jwks)
                case UserInfoTests.userinfoURL: return userinfo(request)
                default: return HTTPTransportResponse(status: 404)
                }
            }
            var provider = metadata(issuer: Issuer(stringLiteral: TestIDP.issuer))
            provider.jwksURI = url(TestIDP.jwksURI)
            if userinfoEndpoint { provider.userinfoEndpoint = url(UserInfoTests.userinfoURL) }
            client = try OAuthClient(metadata: provider, clientID: TestIDP.clientID, authentication: authentication, transport: transport)
        }

        var userinfoRequests: [HTTPTransportRequest] { transport.requests.filter { $0.url.absoluteString == UserInfoTests.userinfoURL } }
    }

    static func jwt(_ body: String, contentType: String = "application/jwt") -> HTTPTransportResponse {
        HTTPTransportResponse(status: 200, headers: [("Content-Type", contentType)], body: Data(body.utf8))
    }

    static func signedClaims(_ changes: [String: JSONMemberValue?] = [:]) -> [String: JSONMemberValue] {
        var claims: [String: JSONMemberValue] = [
            "iss": .string(TestIDP.issuer), "aud": .string(TestIDP.clientID), "sub": .string("user-1"),
            "email": .string("alice@example.com"), "name": .string("Alice"),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    /// Expects `category`/`reason` and checks the secret token is not in the error.
    @discardableResult
    static func expectUserInfoError(
        _ category: AuthFlowError.Category, reason: AuthFlowError.Reason? = nil,
        _ provider: Provider, expectedSubject: String? = "user-1",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> AuthFlowError? {
        let error = await expectError(category, reason: reason, sourceLocation: sourceLocation) {
            try await provider.client.userInfo(accessToken: accessToken, expectedSubject: expectedSubject)
        }
        if let error {
            #expect(
                !error.description.contains(accessToken), "the access token leaked: \(error.description)", sourceLocation: sourceLocation)
            #expect(!error.localizedDescription.contains(accessToken), sourceLocation: sourceLocation)
            #expect(!String(reflecting: error).contains(accessToken), sourceLocation: sourceLocation)
        }
        return error
    }

    // MARK: JSON answers

    @Test func jsonSuccessIsTyped() async throws {
        let provider = try Provider { _ in
            .json(
                #"{"sub":"user-1","email":"alice@example.com","email_verified":true,"name":"Alice","preferred_username":"al","locale":"en"}"#
            )
        }
        let info = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-1")
        #expect(info.subject == "user-1")
        #expect(info.email == "alice@example.com")
        #expect(info.name == "Alice")
        #expect(info.emailVerified == true)
        #expect(info.preferredUsername == "al")
        #expect(info.all["locale"] == .string("en"))
        #expect(provider.transport.requests.count == 1, "a JSON answer needs no JWK Set")
    }

    @Test func requestCarriesBearerHeaderAndNoTokenInURL() async throws {
        let provider = try Provider { _ in .json(#"{"sub":"user-1"}"#) }
        _ = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: nil)
        let request = try #require(provider.userinfoRequests.first)
        #expect(request.method == "GET")
        #expect(request.header("Authorization") == "Bearer \(Self.accessToken)")
        #expect(request.headers.filter { $0.name.lowercased() == "authorization" }.count == 1)
        #expect(!request.url.absoluteString.contains(Self.accessToken))
        #expect(request.url.query == nil)
        #expect(request.url.absoluteString == Self.userinfoURL)
        #expect(request.body == nil || request.body?.isEmpty == true)
        let accept = try #require(request.header("Accept"))
        #expect(accept.contains("application/json"))
        #expect(accept.contains("application/jwt"))
    }

    @Test func withoutExpectedSubjectAnySubIsReturned() async throws {
        let provider = try Provider { _ in .json(#"{"sub":"someone"}"#) }
        let info = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: nil)
        #expect(info.subject == "someone")
        #expect(info.email == nil)
        #expect(info.name == nil)
    }

    @Test func subjectMismatch() async throws {
        let provider = try Provider { _ in .json(#"{"sub":"user-2","email":"mallory@example.com"}"#) }
        await Self.expectUserInfoError(.userinfoSubjectMismatch, provider)
    }

    @Test(arguments: [#"{"email":"alice@example.com"}"#, #"{"sub":""}"#, #"{"sub":42}"#, #"{"sub":null}"#])
    func missingOrInvalidSubIsInvalidResponse(_ body: String) async throws {
        let provider = try Provider { _ in .json(body) }
        await Self.expectUserInfoError(.invalidResponse, provider)
    }

    @Test(arguments: [
        HTTPTransportResponse(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html>hello</html>".utf8)),
        HTTPTransportResponse.json("not json"),
        HTTPTransportResponse.json(#"["sub","user-1"]"#),
        HTTPTransportResponse.json(""),
        HTTPTransportResponse(status: 200, headers: [], body: Data("sub=user-1".utf8)),
    ])
    func nonJSONObjectIsInvalidResponse(_ response: HTTPTransportResponse) async throws {
        let provider = try Provider { _ in response }
        await Self.expectUserInfoError(.invalidResponse, provider)
    }

    // MARK: Signed (application/jwt) answers

    @Test func signedAnswerWithProviderKeyIsVerified() async throws {
        let token = try jws(Self.signedClaims(), key: .ec256, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token + "\n", contentType: "application/jwt; charset=utf-8") }
        let info = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-1")
        #expect(info.subject == "user-1")
        #expect(info.email == "alice@example.com")
        #expect(info.name == "Alice")
        #expect(provider.transport.urls.contains(TestIDP.jwksURI), "the JWK Set was fetched from jwks_uri")
    }

    @Test(arguments: [("RS256", SigningKey.rsa2048), ("EdDSA", SigningKey.ed), ("PS256", SigningKey.rsa2048)])
    func signedAnswerWithOtherAlgorithms(_ alg: String, _ key: SigningKey) async throws {
        let token = try jws(Self.signedClaims(), key: key, alg: alg, kid: "k")
        let provider = try Provider(keys: [key.jwk(kid: "k")]) { _ in Self.jwt(token) }
        let info = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-1")
        #expect(info.subject == "user-1")
    }

    @Test func signedAnswerWithoutIssAndAudIsAccepted() async throws {
        let token = try jws(Self.signedClaims(["iss": nil, "aud": nil]), key: .ec256, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token) }
        let info = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-1")
        #expect(info.subject == "user-1")
    }

    @Test func signedAnswerWithAudienceArrayContainingClient() async throws {
        let token = try jws(
            Self.signedClaims(["aud": .array([.string("other"), .string(TestIDP.clientID)])]), key: .ec256, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token) }
        let info = try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-1")
        #expect(info.subject == "user-1")
    }

    @Test func signedWithUnknownKeyIsKeyNotFound() async throws {
        let token = try jws(Self.signedClaims(), key: .ec256b, alg: "ES256", kid: "unknown")
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.idTokenInvalid, reason: .keyNotFound, provider)
    }

    @Test func signedWithAnotherKeyUnderAKnownKidIsSignature() async throws {
        let token = try jws(Self.signedClaims(), key: .ec256b, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.idTokenInvalid, reason: .signature, provider)
    }

    @Test func unsignedAlgNoneIsAlgorithm() async throws {
        let token = b64(#"{"alg":"none"}"#) + "." + b64(jsonText(Self.signedClaims())) + "."
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.idTokenInvalid, reason: .algorithm, provider)
    }

    @Test func hmacSignedAnswerForPublicClientIsAlgorithm() async throws {
        let token = try jws(Self.signedClaims(), key: .hmac("whatever"), alg: "HS256", kid: nil)
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.idTokenInvalid, reason: .algorithm, provider)
    }

    @Test func otherIssuerIsIssuerMismatch() async throws {
        let token = try jws(Self.signedClaims(["iss": .string("https://evil.example")]), key: .ec256, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.issuerMismatch, provider)
    }

    @Test(arguments: [JSONMemberValue.string("other-client"), .array([.string("a"), .string("b")]), .array([])])
    func audienceWithoutClientIsAudience(_ aud: JSONMemberValue) async throws {
        let token = try jws(Self.signedClaims(["aud": aud]), key: .ec256, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.idTokenInvalid, reason: .audience, provider)
    }

    @Test func signedSubjectMismatch() async throws {
        let token = try jws(Self.signedClaims(["sub": .string("user-2")]), key: .ec256, alg: "ES256", kid: "ec1")
        let provider = try Provider { _ in Self.jwt(token) }
        await Self.expectUserInfoError(.userinfoSubjectMismatch, provider)
    }

    @Test func encryptedFiveSegmentAnswerIsInvalidResponse() async throws {
        let jwe = "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.a2V5.aXY.Y2lwaGVy.dGFn"
        let provider = try Provider { _ in Self.jwt(jwe) }
        await Self.expectUserInfoError(.invalidResponse, provider)
        #expect(!provider.transport.urls.contains(TestIDP.jwksURI), "nothing to verify, so no JWK Set fetch")
    }

    @Test func garbageJWTIsMalformed() async throws {
        let provider = try Provider { _ in Self.jwt("not-a-jwt") }
        await Self.expectUserInfoError(.idTokenInvalid, reason: .malformed, provider)
    }

    // MARK: Errors

    @Test func bearerChallengeOn401IsOAuthError() async throws {
        let provider = try Provider { _ in
            HTTPTransportResponse(
                status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token", error_description="expired""#)])
        }
        let error = try #require(await Self.expectUserInfoError(.oauthError, provider))
        #expect(error.oauth?.error == "invalid_token")
        #expect(error.oauth?.errorDescription == "expired")
    }

    @Test func bearerChallengeWithRealmOn403() async throws {
        let provider = try Provider { _ in
            HTTPTransportResponse(
                status: 403, headers: [("WWW-Authenticate", #"Bearer realm="example", error="insufficient_scope", scope="openid profile""#)]
            )
        }
        let error = try #require(await Self.expectUserInfoError(.oauthError, provider))
        #expect(error.oauth?.error == "insufficient_scope")
        #expect(error.oauth?.errorDescription == nil)
    }

    @Test func plain401WithoutChallengeIsInvalidResponse() async throws {
        let provider = try Provider { _ in HTTPTransportResponse(status: 401) }
        await Self.expectUserInfoError(.invalidResponse, provider)
    }

    @Test func serverErrorIsOAuthServerError() async throws {
        let provider = try Provider { _ in HTTPTransportResponse(status: 503) }
        let error = try #require(await Self.expectUserInfoError(.oauthError, provider))
        #expect(error.oauth?.error == "server_error")
    }

    @Test func noUserinfoEndpointIsConfiguration() async throws {
        let provider = try Provider(userinfoEndpoint: false) { _ in
            Issue.record("the userinfo endpoint must not be called")
            return HTTPTransportResponse(status: 599)
        }
        await Self.expectUserInfoError(.configuration, provider)
        #expect(provider.transport.requests.isEmpty)
    }

    /// A server that reflects the token into its challenge: AuthFlow's
    /// promise is that no error description contains a token.
    @Test func tokenReflectedByServerDoesNotLeakIntoError() async throws {
        let provider = try Provider { request in
            let token = request.header("Authorization") ?? ""
            return HTTPTransportResponse(
                status: 401, headers: [("WWW-Authenticate", "Bearer error=\"invalid_token\", error_description=\"bad \(token)\"")])
        }
        let error = await expectError(.oauthError) {
            try await provider.client.userInfo(accessToken: Self.accessToken, expectedSubject: nil)
        }
        #expect(error.map { !$0.description.contains(Self.accessToken) } ?? false)
        #expect(error?.oauth?.errorDescription?.contains("<redacted>") == true)
    }

    // MARK: Real transport

    @Test func realTransportSendsBearerHeaderOnly() async throws {
        let server = try LocalHTTPServer { _ in .json(#"{"sub":"user-1","email":"alice@example.com"}"#) }
        defer { server.stop() }
        var provider = metadata(
            issuer: "http://127.0.0.1:\(server.port)", authorization: server.url("/authorize").absoluteString,
            token: server.url("/token").absoluteString)
        provider.userinfoEndpoint = server.url("/userinfo")
        let client = try OAuthClient(metadata: provider, clientID: "app", transport: URLSessionTransport(), timeout: 10)
        let info = try await client.userInfo(accessToken: Self.accessToken, expectedSubject: "user-1")
        #expect(info.email == "alice@example.com")
        let request = try #require(server.requests.first)
        #expect(server.requests.count == 1)
        #expect(request.method == "GET")
        #expect(request.target == "/userinfo")
        #expect(request.header("Authorization") == "Bearer \(Self.accessToken)")
        #expect(request.body.isEmpty)
    }
}
