import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The default transport against local sockets: `URLSessionTransport`, which
/// names `AsyncHTTPClientTransport` on Linux with the AsyncHTTPClient trait.
@Suite struct HTTPTransportTests {
    @Test func closedPortIsNetworkError() async throws {
        try await withRefusingLoopbackPort { port in
            await expectError(.network) {
                try await URLSessionTransport().send(
                    HTTPTransportRequest(method: "GET", url: url("http://127.0.0.1:\(port)/x"), timeout: 5))
            }
        }
    }

    @Test func silentServerIsTimeout() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        let start = Date()
        await expectError(.timeout) {
            try await URLSessionTransport().send(
                HTTPTransportRequest(method: "GET", url: url("http://127.0.0.1:\(server.port)/x"), timeout: 0.5))
        }
        // The server never answers: only the 0.5 s timeout can end this (margin for loaded machines).
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func redirectIsReturnedNotFollowed(_ status: Int) async throws {
        let server = try LocalHTTPServer { request in
            request.target == "/start" ? .init(status: status, headers: [("Location", "/elsewhere")]) : .json("{}")
        }
        defer { server.stop() }
        let response = try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: server.url("/start"), headers: [("Content-Type", "text/plain")], body: Data("body".utf8), timeout: 5))
        #expect(response.status == status)
        #expect(response.header("location") == "/elsewhere")
        #expect(server.requests.map(\.target) == ["/start"])
    }

    @Test func sendsMethodHeadersAndBodyAndReturnsResponse() async throws {
        let server = try LocalHTTPServer { request in
            .init(
                status: 201, headers: [("Content-Type", "application/json; charset=utf-8"), ("X-Echo", request.header("X-Test") ?? "-")],
                body: Data(#"{"ok":true}"#.utf8))
        }
        defer { server.stop() }
        let response = try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: server.url("/p?q=1"), headers: [("X-Test", "value")], body: Data("a=1".utf8), timeout: 5))
        #expect(response.status == 201)
        #expect(response.mediaType == "application/json")
        #expect(response.header("x-echo") == "value")
        #expect(response.body == Data(#"{"ok":true}"#.utf8))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/p?q=1")
        #expect(request.body == Data("a=1".utf8))
    }

    @Test func deadlineBoundsTheWholeOperation() async throws {
        let start = Date()
        await expectError(.timeout) {
            try await withDeadline(seconds: 0.2) { try await Task.sleep(nanoseconds: 60_000_000_000) }
        }
        // Not a speed check: only that the deadline, not the 60 s operation, ended
        // the wait (with a wide margin for a loaded machine).
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(try await withDeadline(seconds: 1) { 42 } == 42)
    }

    #if !(AsyncHTTPClient && os(Linux))
    @Test func urlErrorMapping() {
        let target = url("https://idp.example/x")
        #expect(URLSessionTransport.map(URLError(.timedOut), url: target).category == .timeout)
        #expect(URLSessionTransport.map(URLError(.cancelled), url: target).category == .cancelled)
        #expect(URLSessionTransport.map(URLError(.cannotConnectToHost), url: target).category == .network)
        #expect(URLSessionTransport.map(URLError(.cannotFindHost), url: target).category == .network)
        #expect(URLSessionTransport.map(URLError(.serverCertificateUntrusted), url: target).category == .network)
        #expect(URLSessionTransport.map(URLError(.badServerResponse), url: target).category == .invalidResponse)
        #expect(URLSessionTransport.map(URLError(.notConnectedToInternet), url: target).category == .network)
    }
    #endif

    @Test(arguments: [
        ("http://127.0.0.1", true), ("http://127.255.0.1:9", true), ("http://[::1]:80", true),
        ("http://localhost", true), ("http://127.0.0", false), ("http://127.0.0.256", false),
        ("http://10.0.0.1", false), ("http://localhost.evil.com", false), ("http://[::2]", false),
    ])
    func loopbackDetection(_ text: String, _ loopback: Bool) {
        #expect(URLPolicy.isLoopback(url(text)) == loopback)
    }
}
