import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowLoopback

@Suite struct LoopbackListenerTests {
    /// Makes the listener expect `request` before any callback is sent (a
    /// zero-length wait registers the request and times out at once).
    func prime(_ listener: LoopbackListener, _ request: AuthorizationRequest) async {
        await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.001) }
    }

    @Test func bindsLoopbackOnEphemeralPort() async throws {
        let listener = try await LoopbackListener.start()
        defer { Task { await listener.close() } }
        #expect(listener.port > 0)
        #expect(listener.redirectURI.absoluteString == "http://127.0.0.1:\(listener.port)/callback")
        #expect(canConnect(port: listener.port))
        await listener.close()
    }

    @Test func customPath() async throws {
        let listener = try await LoopbackListener.start(path: "/oauth/done")
        #expect(listener.redirectURI.absoluteString == "http://127.0.0.1:\(listener.port)/oauth/done")
        await listener.close()
    }

    @Test(arguments: ["callback", "/cb?x=1", "/cb#f"])
    func badPathIsConfiguration(_ path: String) async {
        await expectError(.configuration) { try await LoopbackListener.start(path: path) }
    }

    @Test func badOrBusyPortIsConfiguration() async throws {
        await expectError(.configuration) { try await LoopbackListener.start(port: 70000) }
        let first = try await LoopbackListener.start()
        // SO_REUSEADDR does not allow two listeners on one port.
        await expectError(.configuration) { try await LoopbackListener.start(port: first.port) }
        await first.close()
    }

    @Test func ignoresOtherPathsAndWrongStateThenReturnsTheCallback() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        await prime(listener, request)
        let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }

        let favicon = try await get(URL(string: "http://127.0.0.1:\(listener.port)/favicon.ico")!)
        #expect(favicon.status == 404)
        let wrong = try await get(URL(string: "http://127.0.0.1:\(listener.port)/callback?code=evil&state=wrong")!)
        #expect(wrong.status == 400)
        let noState = try await get(URL(string: "http://127.0.0.1:\(listener.port)/callback?code=evil")!)
        #expect(noState.status == 400)

        let callback = "http://127.0.0.1:\(listener.port)/callback?code=the%2Bcode&state=\(request.state)&iss=https%3A%2F%2Fidp.example"
        let right = try await get(URL(string: callback)!)
        #expect(right.status == 200)
        let received = try await waiting.value
        #expect(received.absoluteString == callback)
        let grant = try request.validateCallback(received)
        #expect(grant.code == "the+code")

        // A second, replayed callback is refused.
        let replay = try await get(URL(string: callback)!)
        #expect(replay.status == 400)
        await listener.close()
    }

    @Test func callbackBeforeWaitingIsKept() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        await prime(listener, request)
        let response = try await get(URL(string: "http://127.0.0.1:\(listener.port)/callback?code=c&state=\(request.state)")!)
        #expect(response.status == 200)
        let url = try await listener.waitForCallback(for: request, timeout: 5)
        #expect(url.query?.contains("code=c") == true)
        await listener.close()
    }

    @Test func responsesEchoNothingAndCloseTheConnection() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        await prime(listener, request)
        let marker = "<script>xyz</script>"
        let escaped = "%3Cscript%3Exyz%3C%2Fscript%3E"
        let urls = [
            "http://127.0.0.1:\(listener.port)/\(escaped)",
            "http://127.0.0.1:\(listener.port)/callback?error_description=\(escaped)&state=wrong",
            "http://127.0.0.1:\(listener.port)/callback?code=\(escaped)&error_description=\(escaped)&state=\(request.state)",
        ]
        var statuses: [Int] = []
        for text in urls {
            let response = try await get(URL(string: text)!)
            statuses.append(response.status)
            #expect(!response.body.contains("xyz"))
            #expect(!response.body.contains(marker))
            #expect(!response.body.contains(request.state))
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(response.header("Cache-Control") == "no-store")
            #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
        }
        #expect(statuses == [404, 400, 200])
        await listener.close()
    }

    @Test func postToCallbackIsNotAccepted() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        await prime(listener, request)
        let response = try await get(
            URL(string: "http://127.0.0.1:\(listener.port)/callback?code=c&state=\(request.state)")!,
            method: "POST", body: Data("x".utf8))
        #expect(response.status == 404)
        await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.2) }
        await listener.close()
    }

    @Test func waitTimesOut() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        let start = Date()
        await expectError(.timeout) { try await listener.waitForCallback(for: request, timeout: 0.3) }
        let elapsed = Date().timeIntervalSince(start)
        // The wait ends with the timeout error above, never before the timeout;
        // how long after it depends on the machine's load (no timed assertion).
        #expect(elapsed >= 0.25)
        await listener.close()
    }

    @Test func cancellationIsCancelled() async throws {
        let listener = try await LoopbackListener.start()
        let request = try authorizationRequest(redirectURI: listener.redirectURI)
        for _ in 0..<10 {
            let waiting = Task { try await listener.waitForCallback(for: request, timeout: 30) }
            try await Task.sleep(nanoseconds: 20_000_000)
            let start = Date()
            waiting.cancel()
            let result = await waiting.result
            #expect(Date().timeIntervalSince(start) < 15, "cancellation, not the 30 s timeout, ends the wait")
            guard case .failure(let error) = result else {
                Issue.record("the wait returned a URL after cancellation")
                continue
            }
            let flowError = error as? AuthFlowError
            #expect(flowError?.category == .cancelled, "got \(type(of: error)): \(error)")
        }
        await listener.close()
    }

    @Test func closedListenerRefusesConnections() async throws {
        let listener = try await LoopbackListener.start()
        let port = listener.port
        #expect(canConnect(port: port))
        #if os(Linux)
        // Another suite's server in this process may take the freed port at
        // once, so what is checked is the listener's own socket: the one
        // listening on the port before, by its inode, is gone, and nothing
        // answers the port unless a socket other than it listens there.
        let own = try #require(listeningSocketInodes(port: port).first)
        await listener.close()
        #expect(!listeningSocketInodes(port: port).contains(own))
        #expect(!canConnect(port: port) || !listeningSocketInodes(port: port).filter { $0 != own }.isEmpty)
        #else
        await listener.close()
        #expect(!canConnect(port: port))
        #endif
        await listener.close() // safe twice
    }
}
