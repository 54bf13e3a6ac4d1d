import AuthFlow
import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlowLoopback

extension LoopbackListenerTests {
    /// Slow, idle and many clients; stopping; what the listener leaves behind.
    @Suite struct Lifecycle {
        @Test func idleAndDrippingClientsDoNotBlockTheCallback() async throws {
            // A deadline far beyond the test: only concurrency can serve the callback.
            var settings = ServerSettings()
            settings.requestTimeout = .seconds(120)
            let listener = try await LoopbackListener.start(settings: settings)
            let request = try authorizationRequest(redirectURI: listener.redirectURI)
            listener.prepare(for: request)
            // Browser preconnects that never send, and one client stuck mid-request.
            let idle = try (0..<5).map { _ in try #require(RawConnection(port: listener.port)) }
            let stuck = try #require(RawConnection(port: listener.port))
            stuck.send("GET /callback?state=")
            let waiting = Task { try await listener.waitForCallback(for: request, timeout: 10) }
            let answer = rawHTTP(port: listener.port, Array("GET /callback?code=c&state=\(request.state) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(answer.status == 200)
            #expect(try request.validateCallback(try await waiting.value).code == "c")
            // The preconnect is still usable afterwards.
            idle[0].send("GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(RawConnection.status(idle[0].readAll().text) == 404)
            // Closing the listener closes every connection it holds.
            await listener.close()
            for client in idle.dropFirst() + [stuck] {
                let rest = client.readAll()
                #expect(rest.closed && rest.text.isEmpty)
            }
        }

        @Test func drippingClientGets408AtTheDeadline() async throws {
            var settings = ServerSettings()
            settings.requestTimeout = .milliseconds(500)
            let listener = try await LoopbackListener.start(settings: settings)
            let client = try #require(RawConnection(port: listener.port))
            // One byte every 50 ms: 10 s for the whole request, unless the server stops it.
            let request = Array(
                "GET /callback?state=abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789 HTTP/1.1\r\nHost: x\r\n\r\n"
                    .utf8)
            var sentAll = true
            for byte in request {
                if client.readable(within: 0.05) {
                    sentAll = false
                    break
                }
                client.send([byte])
            }
            #expect(!sentAll, "the server waited for the whole dripped request")
            let answer = client.readAll()
            #expect(RawConnection.status(answer.text) == 408)
            #expect(answer.closed)
            await listener.close()
        }

        @Test func silentConnectionIsClosedWithoutAnAnswerAtTheDeadline() async throws {
            var settings = ServerSettings()
            settings.requestTimeout = .milliseconds(300)
            let listener = try await LoopbackListener.start(settings: settings)
            let client = try #require(RawConnection(port: listener.port))
            let answer = client.readAll(waiting: 10)
            #expect(answer.closed)
            #expect(answer.text.isEmpty)
            await listener.close()
        }

        @Test func portInUseIsATypedError() async throws {
            let first = try await LoopbackListener.start()
            let error = await expectError(.configuration) { try await LoopbackListener.start(port: first.port) }
            #expect(error?.message == "port \(first.port) on 127.0.0.1 is in use")
            #expect((error?.underlyingError as? POSIXError)?.code == .EADDRINUSE)
            #expect(error?.remedy == .chooseAnotherPort)
            #expect(error?.recovery?.contains("--") == false)
            // The first listener is unaffected.
            #expect(rawHTTP(port: first.port, Array("GET /x HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).status == 404)
            await first.close()
        }

        /// A privileged port (refused unless root, which these tests may run as): the error as built from the refusal.
        @Test func privilegedPortIsATypedErrorWithItsRemedy() {
            let error = LoopbackListener.bindError(Socket.Failure(call: "bind", code: POSIXErrorCode.EACCES.rawValue), port: 80)
            #expect(error.category == .configuration && error.message == "not allowed to listen on port 80 of 127.0.0.1")
            #expect(error.remedy == .chooseAnUnprivilegedPort)
            #expect(error.recovery == "Choose a port above 1023, or port 0 for an ephemeral port.")
        }

        @Test func fixedPortCanBeBoundAgainAfterClose() async throws {
            let first = try await LoopbackListener.start()
            let port = first.port
            #expect(rawHTTP(port: port, Array("GET /x HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).status == 404)
            await first.close()
            // The closed connection may linger in TIME_WAIT; SO_REUSEADDR allows the bind.
            let second = try await LoopbackListener.start(port: port)
            #expect(second.port == port)
            await second.close()
        }

        @Test func closeWhileWaitingEndsTheWaitAtOnce() async throws {
            let listener = try await LoopbackListener.start()
            let request = try authorizationRequest(redirectURI: listener.redirectURI)
            let idle = try #require(RawConnection(port: listener.port))
            let waiting = Task { try await listener.waitForCallback(for: request, timeout: 60) }
            try await Task.sleep(nanoseconds: 50_000_000)
            let start = Date()
            await listener.close()
            let result = await waiting.result
            #expect(Date().timeIntervalSince(start) < 30, "close, not the 60 s timeout, ends the wait")
            guard case .failure(let error) = result else {
                Issue.record("the wait returned after close")
                return
            }
            #expect((error as? AuthFlowError)?.category == .cancelled)
            #expect(idle.readAll().closed)
            #expect(!canConnect(port: listener.port))
            // Waiting on a closed listener fails at once; closing again is harmless.
            await expectError(.cancelled) { try await listener.waitForCallback(for: request, timeout: 60) }
            await listener.close()
        }

        @Test func callbackDeliveredBeforeCloseIsStillReturned() async throws {
            let listener = try await LoopbackListener.start()
            let request = try authorizationRequest(redirectURI: listener.redirectURI)
            listener.prepare(for: request)
            #expect(
                rawHTTP(port: listener.port, Array("GET /callback?code=c&state=\(request.state) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).status
                    == 200)
            await listener.close()
            #expect(try request.validateCallback(try await listener.waitForCallback(for: request, timeout: 5)).code == "c")
        }

        @Test func releasingTheListenerStopsIt() async throws {
            var port = 0
            do {
                let listener = try await LoopbackListener.start()
                port = listener.port
                #expect(canConnect(port: port))
            }
            #expect(await eventually { !canConnect(port: port) }, "the listener still accepts after its release")
            #if os(Linux)
            #expect(await eventually { !threadExists(named: "authflow-\(port)") }, "the listener's thread is still running")
            #endif
        }

        #if os(Linux)
        @Test func manyConnectionsLeaveNoDescriptorOrThreadBehind() async throws {
            let listener = try await LoopbackListener.start()
            let port = listener.port
            let links = Set(
                listener.server.descriptors.compactMap {
                    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
                })
            // The listening socket and the wake-up pipe (both ends name the same pipe).
            #expect(listener.server.descriptors.count == 3)
            #expect(links.count == 2)
            #expect(await eventually { threadExists(named: "authflow-\(port)") }, "the listener's thread is not named")
            for index in 0..<300 {
                switch index % 3 {
                case 0:
                    #expect(rawHTTP(port: port, Array("GET /favicon.ico HTTP/1.1\r\nHost: x\r\n\r\n".utf8)).status == 404)
                case 1:
                    #expect(rawHTTP(port: port, Array("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\n\r\n".utf8)).status == 414)
                default:
                    // Connects and goes away without a word.
                    _ = RawConnection(port: port)
                }
            }
            // Only the listening socket stays open once the clients are gone.
            #expect(await eventually { socketsOfThisProcess(onPort: port) == 1 }, "\(socketsOfThisProcess(onPort: port)) sockets open")
            await listener.close()
            #expect(socketsOfThisProcess(onPort: port) == 0)
            #expect(Set(openDescriptors()).isDisjoint(with: links), "a descriptor of the listener is still open")
            #expect(await eventually { !threadExists(named: "authflow-\(port)") }, "the listener's thread is still running")
        }
        #endif
    }
}
