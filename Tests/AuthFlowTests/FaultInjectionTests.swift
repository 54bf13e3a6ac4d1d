import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// Every endpoint the client calls, against a server that fails at the HTTP
/// level: each fault ends in the documented typed error within the timeout
/// (1 s here), nothing hangs or crashes, redirects are never followed, and
/// stored credentials survive a refresh that fails.
@Suite(.serialized) struct FaultInjectionTests {
    enum Endpoint: String, CaseIterable, Sendable {
        case discovery, keySet, token, refresh, userInfo, revocation, devicePolling
    }

    /// The faults, each as the path's answer.
    static let faults: [(name: String, fault: FaultServer.Fault)] = [
        ("reset", .reset),
        ("stall before headers", .stallBeforeHeaders),
        ("stall mid-body", .stallMidBody(announced: 200, sent: 20)),
        ("drip", .drip(interval: 0.2)),
        ("truncated body", .truncated(announced: 200, sent: 20)),
        ("endless body", .endless),
        ("huge Content-Length", .announcing(4 << 30)),
        ("invalid JSON", .answer(.json(#"{"access_token":"a","token_type":"Bearer","#))),
        (
            "wrong Content-Type",
            .answer(.init(status: 200, headers: [("Content-Type", "text/html")], body: Data("<html>login</html>".utf8)))
        ),
        ("429 Retry-After", .answer(.init(status: 429, headers: [("Retry-After", "7")]))),
        ("503", .answer(.init(status: 503, headers: [("Content-Type", "text/html")], body: Data("<h1>down</h1>".utf8)))),
        ("redirect", .answer(.init(status: 307, headers: [("Location", "/elsewhere")]))),
    ]

    /// The documented outcome of `fault` at `endpoint`: a category, and for
    /// OAuth errors the code; nil when the endpoint succeeds anyway.
    static func expected(_ endpoint: Endpoint, _ fault: String) -> (AuthFlowError.Category, String?)? {
        switch (fault, endpoint) {
        case ("reset", _), ("truncated body", _): return (.network, nil)
        case ("stall before headers", _), ("stall mid-body", _), ("drip", _): return (.timeout, nil)
        case ("endless body", _), ("huge Content-Length", _), ("redirect", _): return (.invalidResponse, nil)
        // Revocation reads no body: any 200 is success (RFC 7009 §2.2).
        case ("invalid JSON", .revocation), ("wrong Content-Type", .revocation): return nil
        case ("invalid JSON", _), ("wrong Content-Type", _): return (.invalidResponse, nil)
        // Metadata and keys are documents, not OAuth answers: any other status is invalid_response.
        case ("429 Retry-After", .discovery), ("429 Retry-After", .keySet), ("503", .discovery), ("503", .keySet):
            return (.invalidResponse, nil)
        // A rate-limited poll backs off until the device code expires.
        case ("429 Retry-After", .devicePolling): return (.timeout, nil)
        case ("429 Retry-After", _): return (.oauthError, "temporarily_unavailable")
        case ("503", _): return (.oauthError, "server_error")
        default: return nil
        }
    }

    static let cases: [(Endpoint, String)] = Endpoint.allCases.flatMap { endpoint in faults.map { (endpoint, $0.name) } }

    @Test(arguments: cases)
    func faultEndsInTheDocumentedError(_ endpoint: Endpoint, _ faultName: String) async throws {
        let fault = try #require(Self.faults.first { $0.name == faultName }).fault
        let target = Self.path(endpoint)
        let server = try FaultServer { request in
            if request.target.hasPrefix(target) { return fault }
            return Self.healthy(request)
        }
        defer { server.stop() }
        let start = ContinuousClock.now
        let outcome: Result<Void, any Error>
        do {
            try await Self.call(endpoint, server)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        let elapsed = ContinuousClock.now - start
        // Nothing hangs: the slowest case is two 1 s attempts (a refresh retries
        // once) plus polling, a few seconds; the bound is a hang detector, wide
        // enough for a loaded machine (84 cases run in parallel), not a speed test.
        #expect(elapsed < .seconds(60), "\(endpoint) / \(faultName) took \(elapsed)")
        #expect(!server.requests.contains { $0.target.hasPrefix("/elsewhere") }, "a redirect was followed")
        switch (outcome, Self.expected(endpoint, faultName)) {
        case (.success, nil):
            break
        case (.success, let expected?):
            Issue.record("\(endpoint) / \(faultName): expected \(expected.0), got success")
        case (.failure(let error), let expected):
            guard let error = error as? AuthFlowError else {
                Issue.record("\(endpoint) / \(faultName): not an AuthFlowError: \(error)")
                return
            }
            #expect(error.category == expected?.0, "\(endpoint) / \(faultName): \(error)")
            if let code = expected?.1 { #expect(error.oauth?.error == code, "\(endpoint) / \(faultName): \(error)") }
            if faultName == "429 Retry-After", error.category == AuthFlowError.Category.oauthError {
                #expect(error.oauth?.errorDescription?.hasSuffix("was rate-limited (HTTP 429; retry after 7 s)") == true)
            }
        }
    }

    /// A refresh that fails transiently keeps the stored credentials, whole,
    /// and the session refreshes once the server answers again.
    @Test(arguments: ["reset", "stall before headers", "truncated body", "endless body", "429 Retry-After", "503", "invalid JSON"])
    func failedRefreshKeepsTheCredentials(_ faultName: String) async throws {
        let fault = try #require(Self.faults.first { $0.name == faultName }).fault
        let healthy = Locked(false)
        let server = try FaultServer { request in
            if request.target.hasPrefix("/token"), !healthy.current { return fault }
            return Self.healthy(request)
        }
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-fault-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCredentialStore(url: directory.appendingPathComponent("credentials.json"))
        let client = try Self.client(server)
        let expired = try Self.credentials(expiresIn: 0)
        try await store.save(SessionRecord(credentials: expired, client: client))
        let stored = try Data(contentsOf: directory.appendingPathComponent("credentials.json"))
        let session = AuthSession(client: client, store: store)

        await #expect(throws: AuthFlowError.self) { try await session.freshAccessToken() }
        #expect(try Data(contentsOf: directory.appendingPathComponent("credentials.json")) == stored, "the stored credentials changed")
        #expect(try await session.currentCredentials?.token.refreshToken == "refresh-1")

        healthy.withLock { $0 = true }
        #expect(try await session.freshAccessToken() == "access-2")
        #expect(try await store.load()?.credentials.accessToken == "access-2")
    }

    // MARK: The endpoints

    static func path(_ endpoint: Endpoint) -> String {
        switch endpoint {
        case .discovery: "/.well-known/openid-configuration"
        case .keySet: "/jwks"
        case .token, .refresh, .devicePolling: "/token"
        case .userInfo: "/userinfo"
        case .revocation: "/revoke"
        }
    }

    /// What a working provider answers.
    static func healthy(_ request: LocalHTTPServer.Request) -> FaultServer.Fault {
        let host = "http://127.0.0.1:" + (request.header("Host")?.split(separator: ":").last.map(String.init) ?? "0")
        switch request.target.split(separator: "?").first.map(String.init) ?? "" {
        case "/.well-known/openid-configuration":
            return .answer(
                .json(
                    #"{"issuer":"\#(host)","authorization_endpoint":"\#(host)/authorize","token_endpoint":"\#(host)/token","jwks_uri":"\#(host)/jwks","userinfo_endpoint":"\#(host)/userinfo","revocation_endpoint":"\#(host)/revoke","device_authorization_endpoint":"\#(host)/device"}"#
                ))
        case "/jwks": return .answer(.json(#"{"keys":[]}"#))
        case "/token": return .answer(.json(#"{"access_token":"access-2","token_type":"Bearer","expires_in":3600}"#))
        case "/userinfo": return .answer(.json(#"{"sub":"u-1"}"#))
        case "/revoke": return .answer(.init(status: 200))
        case "/device":
            return .answer(
                .json(#"{"device_code":"dc","user_code":"UC","verification_uri":"\#(host)/activate","expires_in":12,"interval":5}"#))
        default: return .answer(.init(status: 404))
        }
    }

    static func metadata(_ server: FaultServer) -> ProviderMetadata {
        var metadata = ProviderMetadata(
            issuer: "http://127.0.0.1:\(server.port)", authorizationEndpoint: server.url("/authorize"),
            tokenEndpoint: server.url("/token"))
        metadata.userinfoEndpoint = server.url("/userinfo")
        metadata.revocationEndpoint = server.url("/revoke")
        metadata.deviceAuthorizationEndpoint = server.url("/device")
        return metadata
    }

    static func client(_ server: FaultServer) throws -> OAuthClient {
        try OAuthClient(metadata: metadata(server), clientID: "app", transport: URLSessionTransport(), timeout: 1)
    }

    static func credentials(expiresIn: Int) throws -> OAuthCredentials {
        let token = try TokenResponse(
            json: Data(#"{"access_token":"access-1","token_type":"Bearer","expires_in":\#(expiresIn),"refresh_token":"refresh-1"}"#.utf8),
            requestedScopes: [])
        return OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil)
    }

    static func call(_ endpoint: Endpoint, _ server: FaultServer) async throws {
        switch endpoint {
        case .discovery:
            _ = try await ProviderMetadata.discover(issuer: Issuer(server.url("")), transport: URLSessionTransport(), timeout: 1)
        case .keySet:
            _ = try await KeySetCache(jwksURI: server.url("/jwks"), transport: URLSessionTransport(), timeout: 1).keySet()
        case .token:
            _ = try await client(server).exchange(
                AuthorizationGrant(
                    code: "code-1", codeVerifier: String(repeating: "v", count: 43),
                    redirectURI: url("http://127.0.0.1:9/cb"), clientID: "app"))
        case .refresh:
            _ = try await client(server).refresh(credentials(expiresIn: 0))
        case .userInfo:
            _ = try await client(server).userInfo(accessToken: "access-1", expectedSubject: nil)
        case .revocation:
            try await client(server).revoke("refresh-1", hint: .refreshToken)
        case .devicePolling:
            _ = try await client(server).startDeviceAuthorization(scopes: [], clock: FakeClock()).credentials()
        }
    }
}
