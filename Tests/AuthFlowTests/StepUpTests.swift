import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Step-up authorization: a resource's 403 `insufficient_scope` with
/// `scope=` makes ``AuthSession/send(_:stepUp:)`` authorize again once with
/// the union of scopes and retry once, against a real resource on 127.0.0.1.
@Suite struct StepUpTests {
    /// A resource that accepts `strong` only, and asks for `read write` otherwise.
    static func resource(always403: Bool = false, scope: String = "read write") throws -> LocalHTTPServer {
        try LocalHTTPServer { request in
            if !always403, request.header("Authorization") == "Bearer strong" { return .json(#"{"ok":true}"#) }
            return .init(
                status: 403, headers: [("WWW-Authenticate", #"Bearer error="insufficient_scope", scope="\#(scope)""#)])
        }
    }

    static func credentials(_ token: String, scopes: [String]) throws -> OAuthCredentials {
        let body = #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":3600,"scope":"\#(scopes.joined(separator: " "))"}"#
        return OAuthCredentials(
            issuer: "https://as.example", clientID: "app", token: try TokenResponse(json: json(body), requestedScopes: []), idToken: nil)
    }

    static func session(_ server: LocalHTTPServer, store: any CredentialStore) async throws -> AuthSession {
        var client = try OAuthClient(
            metadata: ProviderMetadata(
                issuer: "https://as.example", authorizationEndpoint: url("https://as.example/authorize"),
                tokenEndpoint: url("https://as.example/token")),
            clientID: "app", transport: URLSessionTransport(), timeout: 5)
        client.resource = try ResourceIdentifier(server.url("/api"))
        return try await AuthSession.start(client: client, credentials: credentials("weak", scopes: ["read"]), store: store)
    }

    @Test func a403WithScopeAuthorizesAgainOnceWithTheUnionAndRetries() async throws {
        let server = try Self.resource()
        defer { server.stop() }
        let store = MemoryCredentialStore()
        let session = try await Self.session(server, store: store)
        let asked = Locked<[[String]]>([])
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
            asked.withLock { $0.append(demand.scopes) }
            #expect(demand == AuthSession.StepUpDemand(error: "insufficient_scope", scopes: ["read", "write"]))
            return try Self.credentials("strong", scopes: demand.scopes)
        }
        #expect(response.status == 200)
        #expect(asked.current == [["read", "write"]])
        #expect(try await store.load()?.credentials.accessToken == "strong")
        #expect(try await session.freshAccessToken() == "strong")
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer weak", "Bearer strong"])
    }

    @Test func aSecond403IsAnInsufficientScopeErrorAfterOneStepUp() async throws {
        let server = try Self.resource(always403: true)
        defer { server.stop() }
        let calls = try await Self.refusedStepUps(server)
        #expect(calls == 1)
        #expect(server.requests.count == 2)
    }

    @Test func scopesGrantedAlreadyAreNotAskedForAgain() async throws {
        let server = try Self.resource(scope: "read")
        defer { server.stop() }
        let calls = try await Self.refusedStepUps(server)
        #expect(calls == 0)
    }

    @Test(arguments: ["read \"write", String(repeating: "s ", count: 65)])
    func aChallengeWithBadOrTooManyScopesIsRefused(_ scope: String) async throws {
        let server = try LocalHTTPServer { _ in
            .init(
                status: 403,
                headers: [
                    (
                        "WWW-Authenticate",
                        "Bearer error=\"insufficient_scope\", scope=\"\(scope.replacingOccurrences(of: "\"", with: "\\\""))\""
                    )
                ])
        }
        defer { server.stop() }
        let session = try await Self.session(server, store: MemoryCredentialStore())
        await expectError(.invalidResponse) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
                Issue.record("no step-up for a bad challenge")
                return try Self.credentials("strong", scopes: demand.scopes)
            }
        }
    }

    @Test func credentialsOfAnotherClientAreRefused() async throws {
        let server = try Self.resource()
        defer { server.stop() }
        let store = MemoryCredentialStore()
        let session = try await Self.session(server, store: store)
        await expectError(.configuration) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { _ in
                let body = #"{"access_token":"strong","token_type":"Bearer"}"#
                return OAuthCredentials(
                    issuer: "https://as.example", clientID: "other", token: try TokenResponse(json: json(body), requestedScopes: []),
                    idToken: nil)
            }
        }
        #expect(try await store.load()?.credentials.accessToken == "weak")
    }

    @Test func a403WithoutInsufficientScopeIsReturnedAsItIs() async throws {
        let server = try LocalHTTPServer { _ in .init(status: 403) }
        defer { server.stop() }
        let session = try await Self.session(server, store: MemoryCredentialStore())
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
            Issue.record("no step-up without a challenge")
            return try Self.credentials("strong", scopes: demand.scopes)
        }
        #expect(response.status == 403)
    }

    /// Sends one request that ends in an `insufficient_scope` error, and
    /// returns how many times the session asked to step up on the way.
    private static func refusedStepUps(_ server: LocalHTTPServer) async throws -> Int {
        let session = try await session(server, store: MemoryCredentialStore())
        let calls = Locked(0)
        let error = await expectError(.oauthError) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
                calls.withLock { $0 += 1 }
                return try credentials("strong", scopes: demand.scopes)
            }
        }
        #expect(error?.oauth?.error == "insufficient_scope")
        return calls.current
    }
}

/// RFC 9470 step-up: a resource's 401 `insufficient_user_authentication`
/// with `acr_values` and `max_age` makes ``AuthSession/send(_:stepUp:)``
/// sign in again once with them and retry once, against a real resource on
/// 127.0.0.1.
@Suite struct AuthenticationStepUpTests {
    static let challenge =
        #"Bearer error="insufficient_user_authentication", "#
        + #"error_description="A different authentication level is required", acr_values="myACR urn:example:mfa", max_age=5"#

    /// A resource that accepts `strong` only, and challenges with `challenge` otherwise.
    static func resource(always401: Bool = false, challenge: String = challenge) throws -> LocalHTTPServer {
        try LocalHTTPServer { request in
            if !always401, request.header("Authorization") == "Bearer strong" { return .json(#"{"ok":true}"#) }
            return .init(status: 401, headers: [("WWW-Authenticate", challenge)])
        }
    }

    @Test func theChallengeIsRead() throws {
        let read = try #require(ResourceChallenge(fieldValue: Self.challenge))
        #expect(read.isInsufficientUserAuthentication && !read.isInsufficientScope)
        #expect(read.acrValues == ["myACR", "urn:example:mfa"])
        #expect(read.maxAge == 5)
        #expect(ResourceChallenge(fieldValue: #"Bearer error="insufficient_user_authentication", max_age="-5""#)?.maxAge == nil)
        #expect(ResourceChallenge(fieldValue: #"Bearer error="insufficient_user_authentication", max_age=99999999999"#)?.maxAge == nil)
    }

    @Test func a401WithACRValuesSignsInAgainOnceWithThemAndRetries() async throws {
        let server = try Self.resource()
        defer { server.stop() }
        let store = MemoryCredentialStore()
        let session = try await StepUpTests.session(server, store: store)
        let asked = Locked<[AuthSession.StepUpDemand]>([])
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
            asked.withLock { $0.append(demand) }
            return try StepUpTests.credentials("strong", scopes: demand.scopes)
        }
        #expect(response.status == 200)
        #expect(
            asked.current == [
                AuthSession.StepUpDemand(
                    error: "insufficient_user_authentication", scopes: ["read"], acrValues: ["myACR", "urn:example:mfa"], maxAge: 5)
            ])
        #expect(try await store.load()?.credentials.accessToken == "strong")
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer weak", "Bearer strong"])
    }

    /// The demand's options ask the provider for the level, check the ID token's `acr`, and cap `max_age`.
    @Test func theDemandsOptionsCarryTheLevelAndTheAge() throws {
        let demand = AuthSession.StepUpDemand(
            error: "insufficient_user_authentication", scopes: ["read"], acrValues: ["urn:example:mfa"], maxAge: 5)
        let options = demand.options(AuthorizationOptions(maxAge: 600, uiLocales: ["fr"]))
        #expect(options.acrValues == ["urn:example:mfa"] && options.checksACRValues)
        #expect(options.maxAge == 5)
        #expect(options.uiLocales == ["fr"])
        let ageOnly = AuthSession.StepUpDemand(error: "insufficient_user_authentication", scopes: [], maxAge: 60).options()
        #expect(ageOnly.acrValues.isEmpty && !ageOnly.checksACRValues && ageOnly.maxAge == 60)
    }

    /// Once: a second refusal is an `insufficient_user_authentication` error, never a second sign-in.
    @Test func aSecond401IsAnInsufficientUserAuthenticationErrorAfterOneStepUp() async throws {
        let server = try Self.resource(always401: true)
        defer { server.stop() }
        let session = try await StepUpTests.session(server, store: MemoryCredentialStore())
        let calls = Locked(0)
        let error = await expectError(.oauthError) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
                calls.withLock { $0 += 1 }
                return try StepUpTests.credentials("strong", scopes: demand.scopes)
            }
        }
        #expect(error?.oauth?.error == "insufficient_user_authentication")
        #expect(
            error?.message
                == "the resource still needs another authentication after authorizing again: acr_values myACR urn:example:mfa, max_age 5")
        #expect(calls.current == 1)
        #expect(server.requests.count == 2)
    }

    /// Nothing to ask for (no `acr_values`, no usable `max_age`): returned as it is.
    @Test(arguments: [
        #"Bearer error="insufficient_user_authentication""#,
        #"Bearer error="insufficient_user_authentication", error_description="more", max_age="soon""#,
    ])
    func a401ThatAsksForNothingIsReturnedAsItIs(_ challenge: String) async throws {
        let server = try Self.resource(always401: true, challenge: challenge)
        defer { server.stop() }
        let session = try await StepUpTests.session(server, store: MemoryCredentialStore())
        let response = try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
            Issue.record("no step-up without a demand")
            return try StepUpTests.credentials("strong", scopes: demand.scopes)
        }
        #expect(response.status == 401)
    }

    @Test(arguments: [
        #"Bearer error="insufficient_user_authentication", acr_values="a\"b""#,
        #"Bearer error="insufficient_user_authentication", acr_values=""# + String(repeating: "a ", count: 17) + #"""#,
    ])
    func aChallengeWithBadOrTooManyACRValuesIsRefused(_ challenge: String) async throws {
        let server = try Self.resource(always401: true, challenge: challenge)
        defer { server.stop() }
        let session = try await StepUpTests.session(server, store: MemoryCredentialStore())
        await expectError(.invalidResponse) {
            try await session.send(HTTPTransportRequest(method: "GET", url: server.url("/api"))) { demand in
                Issue.record("no step-up for a bad challenge")
                return try StepUpTests.credentials("strong", scopes: demand.scopes)
            }
        }
    }
}
