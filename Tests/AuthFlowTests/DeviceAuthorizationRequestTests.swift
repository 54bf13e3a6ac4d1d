import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The device authorization request and response (RFC 8628 §3.1–3.2), ID
/// tokens in the device flow, and secrecy of the device code.
@Suite("Device authorization: request, response, secrecy")
struct DeviceAuthorizationRequestTests {
    @Test("the request carries client_id and scope to the endpoint from metadata")
    func requestFromMetadata() async throws {
        let transport = QueuedTransport([DeviceFixture.authorization()])
        let client = try DeviceFixture.client(transport)
        let pending = try await client.startDeviceAuthorization(scopes: ["openid", "profile"], clock: FakeClock())
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url == DeviceFixture.deviceEndpoint)
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(DeviceFixture.form(request) == ["client_id": DeviceFixture.clientID, "scope": "openid profile"])
        #expect(pending.userCode == "WDJB-MJHT")
        #expect(pending.verificationURI.absoluteString == "https://id.example.test/device")
        #expect(pending.verificationURIComplete?.absoluteString == "https://id.example.test/device?user_code=WDJB-MJHT")
        #expect(pending.response.expiresIn == 600)
        #expect(pending.response.interval == 5)
    }

    @Test("an explicit endpoint wins; client_secret_basic authenticates like the token endpoint")
    func explicitEndpointAndBasic() async throws {
        let transport = QueuedTransport([DeviceFixture.authorization()])
        let metadata = ProviderMetadata(
            authorizationEndpoint: URL(string: "https://as.test/authorize")!,
            tokenEndpoint: URL(string: "https://as.test/token")!)
        let client = try DeviceFixture.client(transport, metadata: metadata, authentication: .clientSecretBasic(secret: "s+/="))
        let endpoint = URL(string: "https://as.test/o/device-authorization/")!
        _ = try await client.startDeviceAuthorization(scopes: [], endpoint: endpoint, clock: FakeClock())
        let request = try #require(transport.requests.first)
        #expect(request.url == endpoint)
        #expect(DeviceFixture.form(request).isEmpty, "no scope, and the client authenticates in the header")
        let basic = Data("tv-app:s%2B%2F%3D".utf8).base64EncodedString()
        #expect(request.header("Authorization") == "Basic \(basic)")
    }

    @Test("no endpoint anywhere is a configuration error; http is refused off loopback")
    func missingOrInsecureEndpoint() async throws {
        let metadata = ProviderMetadata(
            authorizationEndpoint: URL(string: "https://as.test/authorize")!,
            tokenEndpoint: URL(string: "https://as.test/token")!)
        let client = try DeviceFixture.client(QueuedTransport([]), metadata: metadata)
        let missing = await #expect(throws: AuthFlowError.self) { try await client.startDeviceAuthorization(scopes: []) }
        #expect(missing?.category == .configuration)
        let insecure = await #expect(throws: AuthFlowError.self) {
            try await client.startDeviceAuthorization(scopes: [], endpoint: URL(string: "http://as.test/device")!)
        }
        #expect(insecure?.category == .configuration)
    }

    @Test("an OAuth error from the device endpoint is oauth_error", arguments: [400, 401])
    func refused(status: Int) async throws {
        let transport = QueuedTransport([QueuedTransport.oauthError("invalid_client", status: status)])
        let client = try DeviceFixture.client(transport)
        let error = await #expect(throws: AuthFlowError.self) { try await client.startDeviceAuthorization(scopes: []) }
        #expect(error?.category == .oauthError)
        #expect(error?.oauth?.error == "invalid_client")
    }

    @Test(
        "a missing required member is invalid_response",
        arguments: ["device_code", "user_code", "verification_uri", "expires_in"])
    func missingMember(member: String) async throws {
        let transport = QueuedTransport([DeviceFixture.authorization(omit: member)])
        let client = try DeviceFixture.client(transport)
        let error = await #expect(throws: AuthFlowError.self) { try await client.startDeviceAuthorization(scopes: []) }
        #expect(error?.category == .invalidResponse)
        #expect(error?.message.contains(member) == true)
    }

    @Test("malformed members are invalid_response")
    func malformedMembers() throws {
        let cases: [[String: Any]] = [
            ["interval": -1], ["interval": "soon"], ["expires_in": 0], ["expires_in": 1.5],
            ["verification_uri": "not a url"], ["verification_uri": "javascript:alert(1)"],
            ["verification_uri_complete": "file:///etc/passwd"], ["user_code": 42],
        ]
        for change in cases {
            var body: [String: Any] = [
                "device_code": "d", "user_code": "u", "verification_uri": "https://as.test/device", "expires_in": 60,
            ]
            body.merge(change) { $1 }
            let data = try JSONSerialization.data(withJSONObject: body)
            #expect(throws: AuthFlowError.self, "\(change)") { try DeviceAuthorizationResponse(json: data) }
        }
        #expect(throws: AuthFlowError.self) { try DeviceAuthorizationResponse(json: Data("[]".utf8)) }
    }

    @Test("numeric strings and verification_url are accepted")
    func lenientForms() throws {
        let body = #"{"device_code":"d","user_code":"u","verification_url":"https://as.test/device","expires_in":"1800","interval":"7"}"#
        let response = try DeviceAuthorizationResponse(json: Data(body.utf8))
        #expect(response.expiresIn == 1800)
        #expect(response.interval == 7)
        #expect(response.verificationURI.absoluteString == "https://as.test/device")
        #expect(response.verificationURIComplete == nil)
    }

    @Test("a token response without access_token is invalid_response")
    func badTokenResponse() async throws {
        let transport = QueuedTransport([DeviceFixture.authorization(), QueuedTransport.json(200, ["token_type": "Bearer"])])
        let client = try DeviceFixture.client(transport)
        let pending = try await client.startDeviceAuthorization(scopes: [], clock: FakeClock())
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        #expect(error?.category == .invalidResponse)
    }

    @Test("an ID token is verified (no nonce in this flow); openid without one is accepted")
    func idTokens() async throws {
        let good = QueuedTransport([DeviceFixture.authorization(), DeviceFixture.token(idToken: DeviceFixture.idToken())])
        let client = try DeviceFixture.client(good, authentication: .clientSecretPost(secret: DeviceFixture.secret))
        let credentials = try await client.startDeviceAuthorization(scopes: ["openid"], clock: FakeClock()).credentials()
        #expect(credentials.subject == "user-42")
        #expect(credentials.issuer?.identifier == DeviceFixture.issuer)

        let none = QueuedTransport([DeviceFixture.authorization(), DeviceFixture.token()])
        let plain = try await DeviceFixture.client(none).startDeviceAuthorization(scopes: ["openid"], clock: FakeClock()).credentials()
        #expect(plain.idToken == nil)

        let wrong = QueuedTransport([DeviceFixture.authorization(), DeviceFixture.token(idToken: DeviceFixture.idToken(audience: "other"))])
        let wrongClient = try DeviceFixture.client(wrong, authentication: .clientSecretPost(secret: DeviceFixture.secret))
        let pending = try await wrongClient.startDeviceAuthorization(scopes: ["openid"], clock: FakeClock())
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        #expect(error?.category == .idTokenInvalid)
        #expect(error?.reason == .audience)
    }

    @Test("the device code never reaches a log line, a description, a mirror or an error")
    func deviceCodeStaysSecret() async throws {
        let log = LogCapture()
        let transport = QueuedTransport([
            DeviceFixture.authorization(),
            QueuedTransport.oauthError("authorization_pending"),
            QueuedTransport.oauthError("slow_down"),
            QueuedTransport.oauthError("access_denied"),
        ])
        let client = try DeviceFixture.client(transport, log: log)
        let pending = try await client.startDeviceAuthorization(scopes: ["openid"], clock: FakeClock())
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        var dumped = ""
        dump(pending.response, to: &dumped)
        dump(pending, to: &dumped)
        let texts = [
            log.text, "\(pending)", "\(pending.response)", String(reflecting: pending.response), String(reflecting: pending),
            dumped, "\(error.map { "\($0)" } ?? "")", error?.recoverySuggestion ?? "",
        ]
        #expect(log.text.contains("device authorization poll"), "the log is not empty")
        #expect("\(pending.response)".contains("WDJB-MJHT"))
        for text in texts {
            #expect(!text.contains(DeviceFixture.deviceCode))
        }
    }
}
