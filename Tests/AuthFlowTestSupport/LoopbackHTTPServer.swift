#if EmbeddedProvider || Hummingbird // the package traits that bring Hummingbird
package import Foundation
package import Hummingbird
package import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird server on 127.0.0.1 at a port the system picks, running in
/// a service group until ``stop()``: the HTTP server under the test APIs and
/// the hostile servers of the tests.
package final class LoopbackHTTPServer: Sendable {
    /// The port it listens on.
    package let port: Int
    private let group: ServiceGroup
    private let running: Task<Void, Never>

    /// `http://127.0.0.1:PORT`.
    package var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(port: Int, group: ServiceGroup, running: Task<Void, Never>) {
        self.port = port
        self.group = group
        self.running = running
    }

    /// Starts `responder` and returns once it listens.
    ///
    /// - Throws: ``LoopbackHTTPServerError/notStarted`` when it stopped before
    ///   it listened, or listens on no port it can name.
    package static func start<Responder: HTTPResponder>(
        _ responder: Responder, label: String, logLevel: Logger.Level = .error
    ) async throws -> LoopbackHTTPServer where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: label)
        logger.logLevel = logLevel
        let application = Application(
            responder: responder, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let group = ServiceGroup(services: [application], logger: logger)
        let running = Task {
            do { try await group.run() } catch {}
            continuation.finish() // a server that stopped before it listened ends the wait below
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            await group.triggerGracefulShutdown()
            await running.value
            throw LoopbackHTTPServerError.notStarted
        }
        return LoopbackHTTPServer(port: port, group: group, running: running)
    }

    /// Stops the server and waits until it has.
    package func stop() async {
        await group.triggerGracefulShutdown()
        await running.value
    }
}

/// Why a ``LoopbackHTTPServer`` did not start.
package enum LoopbackHTTPServerError: Error {
    /// It stopped before it listened, or listens on no port it can name.
    case notStarted
}
#endif
