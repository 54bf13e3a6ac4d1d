import AuthFlow
import AuthFlowTestSupport
import Foundation
import Logging
import Testing

@testable import AuthFlowLoopback

extension LoopbackListenerTests {
    /// The listener's log, at its most verbose, never holds a code, a state or
    /// anything else a request carried.
    @Suite struct LogRedaction {
        @Test func nothingFromARequestReachesTheLog() async throws {
            let capture = LogCapture()
            let listener = try await LoopbackListener.start(logger: capture.logger(label: "loopback-test"))
            let request = try FormPostTests.formPostRequest(listener)
            listener.prepare(for: request)
            let secret = "s3cr3t-code-value"
            let requests = [
                "GET /callback?code=\(secret)&state=wrong-\(secret) HTTP/1.1\r\nHost: x\r\n\r\n",
                "PUT /callback?code=\(secret) HTTP/1.1\r\nHost: x\r\n\r\n",
                "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 17\r\n\r\n\(secret)",
                "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 3\r\n\r\n%zz",
                "GET /callback?code=\(String(repeating: "x", count: 9000))\(secret) HTTP/1.1\r\n\r\n",
            ]
            for text in requests { _ = rawHTTP(port: listener.port, Array(text.utf8)) }
            let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
            #expect(post(port: listener.port, body: FormEncoding.encode([("code", secret), ("state", request.state)])).status == 200)
            _ = try await waiting.value
            await listener.close()
            let log = capture.text
            #expect(log.contains("callback received"))
            #expect(log.contains("status=405"))
            for forbidden in [secret, request.state, "wrong-"] {
                #expect(!log.contains(forbidden), "the log holds \(forbidden)")
            }
        }
    }
}
