import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `URLSessionTransport` bounds every response body while it arrives and
/// every request in time, against a real misbehaving server on 127.0.0.1.
@Suite(.serialized) struct ResponseLimitTests {
    static let transport = URLSessionTransport()

    func get(
        _ server: FaultServer, _ path: String = "/doc", purpose: HTTPTransportRequest.Purpose = .discovery, limit: Int? = nil,
        timeout: TimeInterval = 2, transport: URLSessionTransport = transport
    ) async throws -> HTTPTransportResponse {
        try await transport.send(
            HTTPTransportRequest(
                method: "GET", url: server.url(path + "?secret=q"), timeout: timeout,
                purpose: purpose, maxResponseBytes: limit))
    }

    @Test func defaultsFitWhatEachResponseIs() {
        let limits = ResponseLimits()
        #expect(limits[.discovery] == 1 << 20 && limits[.keySet] == 1 << 20)
        #expect(limits[.token] == 256 << 10 && limits[.userInfo] == 256 << 10)
        #expect(limits[.deviceAuthorization] == 64 << 10 && limits[.pushedAuthorization] == 64 << 10 && limits[.revocation] == 64 << 10)
        #expect(limits[.resource] == 16 << 20 && limits[HTTPTransportRequest.Purpose("custom")] == 16 << 20)
        let request = HTTPTransportRequest(method: "GET", url: url("https://idp.example/token"), purpose: .token)
        #expect(limits.limit(for: request) == 256 << 10)
        #expect(limits.limit(for: request, status: 400) == 64 << 10)
        #expect(limits.limit(for: request, status: 204) == 256 << 10)
        var small = request
        small.maxResponseBytes = 10
        #expect(limits.limit(for: small, status: 500) == 10)
    }

    /// A Content-Length over the limit is refused before the body is read;
    /// the error names the endpoint (never its query) and the limit.
    @Test func announcedLengthOverTheLimitIsRefusedAtOnce() async throws {
        let server = try FaultServer { _ in .announcing(4 << 30) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) { try await get(server) }
        #expect(
            error?.message
                == "the discovery document from http://127.0.0.1:\(server.port)/doc is larger than 1 MiB (Content-Length 4294967296)")
        #expect(error?.recovery?.contains("ResponseLimits") == true)
    }

    @Test(arguments: [FaultServer.Fault.endless, .endlessChunked])
    func endlessBodyIsCutOffAtTheLimit(_ fault: FaultServer.Fault) async throws {
        let server = try FaultServer { _ in fault }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) { try await get(server, purpose: .token, timeout: 30) }
        #expect(error?.message == "the token response from http://127.0.0.1:\(server.port)/doc is larger than 256 KiB")
    }

    /// A Content-Length under the limit with a longer body: no more than the
    /// announced bytes are read.
    @Test func lyingShortContentLengthReadsOnlyWhatWasAnnounced() async throws {
        let server = try FaultServer { _ in .announcing(100) }
        defer { server.stop() }
        let response = try await get(server, timeout: 5)
        #expect(response.body.count == 100)
    }

    @Test func explicitLimitOnTheRequestWins() async throws {
        let server = try FaultServer { _ in .answer(.json(#"{"a":"0123456789"}"#)) }
        defer { server.stop() }
        #expect(try await get(server, limit: 18).body.count == 18)
        let error = await expectError(.invalidResponse) { try await get(server, limit: 17) }
        #expect(error?.message.hasSuffix("is larger than 17 bytes (Content-Length 18)") == true)
    }

    /// The limits are configurable on the transport.
    @Test func transportLimitsAreConfigurable() async throws {
        let server = try FaultServer { _ in .answer(.json(String(repeating: " ", count: 2048) + "{}")) }
        defer { server.stop() }
        var limits = ResponseLimits()
        limits.userInfo = 2 << 10
        let transport = URLSessionTransport(limits: limits)
        let error = await expectError(.invalidResponse) { try await get(server, purpose: .userInfo, transport: transport) }
        #expect(error?.message.contains("is larger than 2 KiB") == true)
        #expect(try await get(server, purpose: .discovery, transport: transport).body.count == 2050)
    }

    /// A refused status gets the (smaller) error-body limit whatever the purpose.
    @Test func errorBodiesHaveTheirOwnLimit() async throws {
        let body = #"{"error":"invalid_request","error_description":""# + String(repeating: "x", count: 70_000) + #""}"#
        let server = try FaultServer { _ in .answer(.json(body, status: 400)) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) { try await get(server, purpose: .discovery) }
        #expect(error?.message.contains("is larger than 64 KiB") == true)
    }

    // MARK: Timeouts

    /// Stalls before the headers, in the middle of the body, and a body that
    /// drips one byte every 100 ms: each ends in `timeout` at the request's
    /// limit. (The bound checked is generous; the figures are in the benchmark.)
    @Test(arguments: [FaultServer.Fault.stallBeforeHeaders, .stallMidBody(announced: 100, sent: 10), .drip(interval: 0.1)])
    func stallsAndDripsEndInTimeout(_ fault: FaultServer.Fault) async throws {
        let server = try FaultServer { _ in fault }
        defer { server.stop() }
        let start = ContinuousClock.now
        let error = await expectError(.timeout) { try await get(server, timeout: 1) }
        #expect(ContinuousClock.now - start < .seconds(30), "the 1 s limit ends the wait (margin for loaded machines)")
        #expect(error?.message == "the discovery document from http://127.0.0.1:\(server.port)/doc did not arrive within 1 s")
    }

    @Test func resetIsNetworkError() async throws {
        let server = try FaultServer { _ in .reset }
        defer { server.stop() }
        await expectError(.network) { try await get(server) }
    }

    @Test func truncatedBodyIsNetworkError() async throws {
        let server = try FaultServer { _ in .truncated(announced: 100, sent: 20) }
        defer { server.stop() }
        await expectError(.network) { try await get(server) }
    }

    /// Cancelling the caller ends the wait at once, whatever the server does.
    @Test func cancellationEndsAStalledRequest() async throws {
        let server = try FaultServer { _ in .stallBeforeHeaders }
        defer { server.stop() }
        let task = Task { try await get(server, timeout: 60) }
        while server.requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
        await expectError(.cancelled) { try await task.value }
    }
}
