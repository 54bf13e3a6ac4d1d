import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowLoopback

extension LoopbackListenerTests {
    /// The listener's limits and HTTP framing rules, each at its boundary, with
    /// the exact status; refusals come while the request is still arriving.
    @Suite struct Limits {
        func send(_ port: Int, _ request: String) -> (status: Int?, text: String, closed: Bool) {
            rawHTTP(port: port, Array(request.utf8))
        }

        @Test func targetAtTheLimitIsReadOneByteMoreIs414() async throws {
            let listener = try await LoopbackListener.start()
            let prefix = "/callback?state=wrong&pad="
            let atLimit = prefix + String(repeating: "a", count: 8192 - prefix.utf8.count)
            // Read, and refused for its state: not for its length.
            #expect(send(listener.port, "GET \(atLimit) HTTP/1.1\r\nHost: x\r\n\r\n").status == 400)
            let over = send(listener.port, "GET \(atLimit)a HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(over.status == 414)
            #expect(over.closed)
            #expect(over.text.contains("Connection: close"))
            await listener.close()
        }

        @Test func longTargetIsRefusedBeforeTheLineEnds() async throws {
            let listener = try await LoopbackListener.start()
            let client = try #require(RawConnection(port: listener.port))
            client.send("GET /callback?code=" + String(repeating: "a", count: 9000))
            // The request line never ends; the answer comes anyway.
            let answer = client.readAll()
            #expect(RawConnection.status(answer.text) == 414)
            #expect(answer.closed)
            await listener.close()
        }

        @Test func headerBytesAtTheLimitAreReadOneMoreIs400() async throws {
            let listener = try await LoopbackListener.start()
            // "Host: x" and "X-Pad: …", each with CRLF: 16 KiB exactly.
            let pad = 16 * 1024 - (7 + 2) - (7 + 2)
            let atLimit = "GET /favicon.ico HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: pad))\r\n\r\n"
            #expect(send(listener.port, atLimit).status == 404)
            let over = "GET /favicon.ico HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "p", count: pad + 1))\r\n\r\n"
            #expect(send(listener.port, over).status == 400)
            await listener.close()
        }

        @Test func oversizedHeadersAreRefusedBeforeTheHeadEnds() async throws {
            let listener = try await LoopbackListener.start()
            let client = try #require(RawConnection(port: listener.port))
            client.send("GET /callback HTTP/1.1\r\nHost: x\r\nX-Pad: " + String(repeating: "p", count: 17 * 1024))
            let answer = client.readAll()
            #expect(RawConnection.status(answer.text) == 400)
            #expect(answer.closed)
            await listener.close()
        }

        @Test func hundredFieldsAreReadAHundredAndOneAre400() async throws {
            let listener = try await LoopbackListener.start()
            let fields = { (count: Int) in "Host: x\r\n" + (1..<count).map { "X-\($0): v\r\n" }.joined() }
            #expect(send(listener.port, "GET /favicon.ico HTTP/1.1\r\n\(fields(100))\r\n").status == 404)
            #expect(send(listener.port, "GET /favicon.ico HTTP/1.1\r\n\(fields(101))\r\n").status == 400)
            await listener.close()
        }

        /// A form body of exactly `length` bytes carrying `state`.
        func formBody(state: String, length: Int) -> String {
            let start = FormEncoding.encode([("state", state), ("code", "c")]) + "&pad="
            return start + String(repeating: "x", count: length - start.utf8.count)
        }

        @Test func bodyAtTheLimitIsReadOneByteMoreIs413() async throws {
            let listener = try await LoopbackListener.start()
            let request = try FormPostTests.formPostRequest(listener)
            listener.prepare(for: request)
            #expect(post(port: listener.port, body: formBody(state: request.state, length: 64 * 1024 + 1)).status == 413)
            let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
            #expect(post(port: listener.port, body: formBody(state: request.state, length: 64 * 1024)).status == 200)
            #expect(try request.validateCallback(try await waiting.value).code == "c")
            await listener.close()
        }

        @Test func chunkedBodyIsMeasuredAcrossChunks() async throws {
            let listener = try await LoopbackListener.start()
            let request = try FormPostTests.formPostRequest(listener)
            listener.prepare(for: request)
            func chunked(_ body: String) -> String {
                let bytes = Array(body.utf8)
                let half = bytes.count / 2
                let parts = [bytes[..<half], bytes[half...]].map { String(decoding: $0, as: UTF8.self) }
                return
                    "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + parts.map { "\(String($0.utf8.count, radix: 16));ext=1\r\n\($0)\r\n" }.joined() + "0\r\nX-Trailer: t\r\n\r\n"
            }
            #expect(send(listener.port, chunked(formBody(state: request.state, length: 64 * 1024 + 1))).status == 413)
            let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
            #expect(send(listener.port, chunked(formBody(state: request.state, length: 64 * 1024))).status == 200)
            #expect(try request.validateCallback(try await waiting.value).code == "c")
            await listener.close()
        }

        @Test func announcedOversizedBodyIsRefusedBeforeItIsSent() async throws {
            let listener = try await LoopbackListener.start()
            let request = try FormPostTests.formPostRequest(listener)
            listener.prepare(for: request)
            for head in ["Content-Length: 70000\r\n", "Transfer-Encoding: chunked\r\n\r\n11000\r\n"] {
                let client = try #require(RawConnection(port: listener.port))
                client.send(
                    "POST /callback HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" + head
                        + (head.hasPrefix("Content-Length") ? "\r\n" : ""))
                let answer = client.readAll()
                #expect(RawConnection.status(answer.text) == 413, "\(head)")
                #expect(answer.closed)
            }
            await listener.close()
        }

        @Test(arguments: ["PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"])
        func otherMethodsAre405(_ method: String) async throws {
            let listener = try await LoopbackListener.start()
            let request = try authorizationRequest(redirectURI: listener.redirectURI)
            listener.prepare(for: request)
            let answer = send(
                listener.port, "\(method) /callback?code=c&state=\(request.state) HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
            #expect(answer.status == 405)
            #expect(answer.text.contains("Allow: GET, POST\r\n"))
            #expect(!answer.text.contains(request.state))
            await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.2) }
            await listener.close()
        }

        @Test(arguments: [
            ("GET /callback HTTP/2.0\r\nHost: x\r\n\r\n", 400), // unknown version
            ("GET  /callback HTTP/1.1\r\nHost: x\r\n\r\n", 400), // two spaces
            ("GET /call\u{7F}back HTTP/1.1\r\nHost: x\r\n\r\n", 400), // control byte in the target
            ("G(T /callback HTTP/1.1\r\nHost: x\r\n\r\n", 400), // not a method token
            ("GET /callback HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400), // obsolete line folding
            ("GET /callback HTTP/1.1\r\nHost : x\r\n\r\n", 400), // space before the colon
            ("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400),
            ("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: x1\r\n\r\n", 400),
            ("POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
            ("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
            ("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n0\r\n\r\n", 400), // chunk longer than its size
            ("\r\nGET /x HTTP/1.1\r\nHost: x\r\n\r\n", 404), // a leading empty line is tolerated
            ("GET /x HTTP/1.0\r\n\r\n", 404),
        ])
        func framing(_ request: String, _ status: Int) async throws {
            let listener = try await LoopbackListener.start()
            let answer = send(listener.port, request)
            #expect(answer.status == status)
            #expect(answer.closed)
            await listener.close()
        }

        @Test func onlyTheFirstOfPipelinedRequestsIsAnswered() async throws {
            let listener = try await LoopbackListener.start()
            let answer = send(listener.port, "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(answer.status == 404)
            #expect(answer.text.components(separatedBy: "HTTP/1.1 ").count == 2)
            #expect(answer.closed)
            await listener.close()
        }
    }
}
