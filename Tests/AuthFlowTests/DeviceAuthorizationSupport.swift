import AuthFlowTestSupport
import Crypto
import Foundation
import Logging

@testable import AuthFlow

/// A transport that answers from a script, one response per request, and
/// records every request. Running off the end of the script is a test bug.
final class QueuedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var script: [HTTPTransportResponse]
    private var sent: [HTTPTransportRequest] = []
    /// Called before each answer with the request number (1-based).
    let onRequest: (@Sendable (Int) -> Void)?

    init(_ script: [HTTPTransportResponse], onRequest: (@Sendable (Int) -> Void)? = nil) {
        self.script = script
        self.onRequest = onRequest
    }

    var requests: [HTTPTransportRequest] {
        lock.lock()
        defer { lock.unlock() }
        return sent
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let (number, next): (Int, HTTPTransportResponse?) = {
            lock.lock()
            defer { lock.unlock() }
            sent.append(request)
            return (sent.count, script.isEmpty ? nil : script.removeFirst())
        }()
        onRequest?(number)
        guard let next else { throw AuthFlowError(.network, "the script has no response for request \(number)") }
        return next
    }

    static func json(_ status: Int, _ object: [String: Any]) -> HTTPTransportResponse {
        let body = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return HTTPTransportResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    static func oauthError(_ code: String, status: Int = 400) -> HTTPTransportResponse {
        json(status, ["error": code, "error_description": "scripted \(code)"])
    }
}

/// A clock whose sleeps return at once and move `now` forward, recording each
/// duration. With `blockAtSleep`, that sleep waits (really) until the task
/// is cancelled.
final class FakeClock: PollingClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current = ContinuousClock.now
    private var slept: [Duration] = []
    let blockAtSleep: Int?

    init(blockAtSleep: Int? = nil) { self.blockAtSleep = blockAtSleep }

    var now: ContinuousClock.Instant {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    var sleeps: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return slept
    }

    func sleep(for duration: Duration) async throws {
        let count: Int = {
            lock.lock()
            defer { lock.unlock() }
            slept.append(duration)
            return slept.count
        }()
        if count == blockAtSleep {
            try await Task.sleep(for: .seconds(3600))
        }
        try Task.checkCancellation()
        lock.withLock { current = current.advanced(by: duration) }
    }
}

/// Builders for the device-flow tests.
enum DeviceFixture {
    static let issuer = "https://id.example.test"
    static let clientID = "tv-app"
    static let secret = "tv-secret-with-enough-bytes-for-hs256-0123456789"
    static let deviceCode = "DEVICE-CODE-secret-GmRhmhcxhwAzkoEqiMEg"
    static let accessToken = "access-token-secret-2YotnFZFEjr1zCsicMWpAA"
    static let deviceEndpoint = URL(string: "https://id.example.test/device_authorization")!

    static var metadata: ProviderMetadata {
        var metadata = ProviderMetadata(
            issuer: Issuer(stringLiteral: issuer), authorizationEndpoint: URL(string: "https://id.example.test/authorize")!,
            tokenEndpoint: URL(string: "https://id.example.test/token")!)
        metadata.deviceAuthorizationEndpoint = deviceEndpoint
        return metadata
    }

    static func authorization(expiresIn: Int = 600, interval: Int? = 5, omit: String? = nil) -> HTTPTransportResponse {
        var body: [String: Any] = [
            "device_code": deviceCode, "user_code": "WDJB-MJHT",
            "verification_uri": "https://id.example.test/device",
            "verification_uri_complete": "https://id.example.test/device?user_code=WDJB-MJHT",
            "expires_in": expiresIn,
        ]
        if let interval { body["interval"] = interval }
        if let omit { body.removeValue(forKey: omit) }
        return QueuedTransport.json(200, body)
    }

    static func token(idToken: String? = nil) -> HTTPTransportResponse {
        var body: [String: Any] = ["access_token": accessToken, "token_type": "Bearer", "expires_in": 3600, "scope": "openid profile"]
        if let idToken { body["id_token"] = idToken }
        return QueuedTransport.json(200, body)
    }

    static func client(
        _ transport: QueuedTransport, log: LogCapture = LogCapture(), metadata: ProviderMetadata = metadata,
        authentication: ClientAuthentication = .none
    ) throws -> OAuthClient {
        try OAuthClient(
            metadata: metadata, clientID: clientID, authentication: authentication, transport: transport,
            logger: log.logger())
    }

    /// An HS256 ID token signed with ``secret``.
    static func idToken(audience: String = clientID, nonce: String? = nil) -> String {
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = ["iss": issuer, "sub": "user-42", "aud": audience, "iat": now, "exp": now + 600]
        if let nonce { claims["nonce"] = nonce }
        let header = base64URL(try! JSONSerialization.data(withJSONObject: ["alg": "HS256", "typ": "JWT"]))
        let payload = base64URL(try! JSONSerialization.data(withJSONObject: claims))
        let input = "\(header).\(payload)"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "\(input).\(base64URL(Data(mac)))"
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func form(_ request: HTTPTransportRequest) -> [String: String] {
        let text = String(decoding: request.body ?? Data(), as: UTF8.self)
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            result[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return result
    }
}

/// Thread-safe list of poll records.
final class PollLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [DevicePoll] = []

    func record(_ poll: DevicePoll) {
        lock.lock()
        items.append(poll)
        lock.unlock()
    }

    var polls: [DevicePoll] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
