#if AsyncHTTPClient && os(Linux) // the AsyncHTTPClient package trait, on Linux
import Foundation
import Testing

@testable import AuthFlow

/// What `AsyncHTTPClientTransport` does beyond the rules every transport
/// keeps (HTTPTransportTests, ResponseLimitTests and FaultInjectionTests run
/// against it with this trait): its errors for what only a real server can
/// get wrong, and nothing kept between requests.
@Suite struct AsyncHTTPClientTransportTests {
    let transport = AsyncHTTPClientTransport()

    @Test func refusedConnectionFailsAtOnceWithoutRetrying() async throws {
        try await withRefusingLoopbackPort { port in
            // A retried connection would run into the 30 s timeout instead.
            let error = await expectError(.network) {
                try await transport.send(HTTPTransportRequest(method: "GET", url: url("http://127.0.0.1:\(port)/x"), timeout: 30))
            }
            #expect(error?.message == "could not connect to 127.0.0.1")
        }
    }

    @Test func tlsWithAServerThatIsNotTLSIsNetworkError() async throws {
        let server = try LocalHTTPServer { _ in .json("{}") }
        defer { server.stop() }
        let error = await expectError(.network) {
            try await transport.send(HTTPTransportRequest(method: "GET", url: url("https://127.0.0.1:\(server.port)/x"), timeout: 10))
        }
        #expect(error?.message == "TLS with 127.0.0.1 failed")
    }

    @Test func garbageInsteadOfHTTPIsInvalidResponse() async throws {
        let server = try FaultServer { _ in .raw(Array("SSH-2.0-OpenSSH_9.2\r\nnot http at all\r\n\r\n".utf8)) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await transport.send(HTTPTransportRequest(method: "GET", url: server.url("/x"), timeout: 10))
        }
        #expect(error?.message == "127.0.0.1 sent a malformed HTTP response")
    }

    @Test func basicChallengeIsReturnedWithItsBody() async throws {
        let server = try LocalHTTPServer { _ in
            .init(
                status: 401, headers: [("WWW-Authenticate", #"Basic realm="token""#), ("Content-Type", "application/json")],
                body: Data(#"{"error":"invalid_client"}"#.utf8))
        }
        defer { server.stop() }
        let response = try await transport.send(
            HTTPTransportRequest(method: "POST", url: server.url("/token"), body: Data("grant_type=x".utf8), timeout: 10, purpose: .token))
        #expect(response.status == 401)
        #expect(response.header("www-authenticate") == #"Basic realm="token""#)
        #expect(response.body == Data(#"{"error":"invalid_client"}"#.utf8))
    }

    @Test func userAgentNamesTheProgramUnlessTheRequestHasOne() async throws {
        let server = try LocalHTTPServer { _ in .json("{}") }
        defer { server.stop() }
        _ = try await transport.send(HTTPTransportRequest(method: "GET", url: server.url("/a"), timeout: 10))
        _ = try await transport.send(
            HTTPTransportRequest(method: "GET", url: server.url("/b"), headers: [("User-Agent", "mine/1")], timeout: 10))
        #expect(server.requests.map { $0.header("User-Agent") } == ["\(ProcessInfo.processInfo.processName) AuthFlow", "mine/1"])
    }

    @Test func cookiesAreNeitherKeptNorSent() async throws {
        let server = try LocalHTTPServer { _ in .init(status: 200, headers: [("Set-Cookie", "session=s3cret; Path=/")]) }
        defer { server.stop() }
        for _ in 0..<2 {
            _ = try await transport.send(HTTPTransportRequest(method: "GET", url: server.url("/x"), timeout: 10))
        }
        #expect(server.requests.count == 2)
        #expect(server.requests.allSatisfy { $0.header("Cookie") == nil })
    }
}
#endif
