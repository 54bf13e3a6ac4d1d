#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
@testable import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// The embedded provider bounds what it reads from a client: the request line
/// and header fields (each, all together, how many) through the HTTP decoder,
/// which refuses them with an empty 400 before any endpoint runs; the body
/// before it is buffered whole (413).
@Suite struct RequestLimitTests {
    /// The status and the start of the body, or "closed" when the server
    /// closed the connection without an answer.
    func outcome(
        _ provider: EmbeddedProvider, target: String = "/token", headers: [(String, String)] = [],
        body: String = "grant_type=x"
    ) async -> String {
        do {
            let response = try await RawHTTP.send(
                port: provider.port, method: "POST", target: target,
                headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: body)
            return "\(response.status) \(String(decoding: response.body, as: UTF8.self).prefix(10))"
        } catch {
            return "closed"
        }
    }

    @Test func oversizedRequestsAreRefusedBeforeAnyEndpointRuns() async throws {
        let provider = try await EmbeddedProvider.start()
        // Within the limits, the endpoint answers (an OAuth error here).
        #expect(await outcome(provider) == #"400 {"error":""#)
        // A body over 64 KiB.
        #expect(await outcome(provider, body: "grant_type=x&pad=" + String(repeating: "a", count: HTTPServer.maximumBodySize)) == "413 ")
        // One header field over 16 KiB; over 100 fields; over 32 KiB of headers.
        let refused = ["400 ", "closed"]
        #expect(
            refused.contains(
                await outcome(provider, headers: [("X-Long", String(repeating: "h", count: HTTPServer.maximumHeaderFieldSize + 1))])))
        #expect(refused.contains(await outcome(provider, headers: (0..<HTTPServer.maximumHeaderFieldCount).map { ("X-F\($0)", "v") })))
        #expect(refused.contains(await outcome(provider, headers: (0..<5).map { ("X-W\($0)", String(repeating: "w", count: 7 * 1024)) })))
        // A request line of 200 KiB.
        #expect(refused.contains(await outcome(provider, target: "/token?" + String(repeating: "q", count: 200 * 1024))))
        await provider.stop()
    }
}
#endif
