import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loop on the listener's own thread: one `poll()` over the listening
/// socket, the wake-up pipe and every open connection, so a client that
/// sends nothing, or drips bytes, never holds up another. Each connection
/// has a deadline (``ServerSettings/requestTimeout``); all sockets are
/// non-blocking.
///
/// It runs until the wake-up pipe is signalled with a stop requested, then
/// closes every descriptor it owns: the listening socket, the connections
/// and the pipe's read end.
final class ServerLoop {
    private let listener: Int32
    private let wake: Int32
    private let responder: CallbackResponder
    private let settings: ServerSettings
    private let logger: Logger
    private let stopRequested: () -> Bool
    private var connections: [Connection] = []
    /// After accept failed for lack of descriptors or memory: no accepting until then.
    private var acceptPausedUntil: ContinuousClock.Instant?
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    init(
        listener: Int32, wake: Int32, responder: CallbackResponder, settings: ServerSettings, logger: Logger,
        stopRequested: @escaping () -> Bool
    ) {
        self.listener = listener
        self.wake = wake
        self.responder = responder
        self.settings = settings
        self.logger = logger
        self.stopRequested = stopRequested
    }

    /// Serves until stopped. Returns the failure that ended it early, if any.
    func run() -> Socket.Failure? {
        defer {
            for connection in connections { connection.close() }
            connections = []
            Socket.close(listener)
            Socket.close(wake)
        }
        while true {
            if stopRequested() { return nil }
            let now = ContinuousClock.now
            expire(now)
            let polled = connections
            var entries = [Socket.pollEntry(wake)]
            let accepting = connections.count < settings.maxConnections && acceptPausedUntil.map { now >= $0 } ?? true
            if accepting { entries.append(Socket.pollEntry(listener)) }
            let first = entries.count
            entries += polled.map { Socket.pollEntry($0.descriptor, writing: $0.phase == .writing) }
            if case .failure(let failure) = Socket.poll(&entries, milliseconds: pollTimeout(now)) {
                logger.error("loopback listener stopped: poll failed", metadata: ["errno": "\(failure.code)"])
                return failure
            }
            if entries[0].revents != 0 { Socket.drain(wake) }
            for (offset, connection) in polled.enumerated() where entries[first + offset].revents != 0 {
                service(connection, events: entries[first + offset].revents)
            }
            if accepting, entries[1].revents != 0 { acceptPending() }
            connections.removeAll { $0.phase == .closed }
        }
    }

    /// Milliseconds until the earliest deadline (-1: none; poll waits for an event).
    private func pollTimeout(_ now: ContinuousClock.Instant) -> Int32 {
        let deadlines = connections.map(\.deadline) + (acceptPausedUntil.map { [$0] } ?? [])
        guard let earliest = deadlines.min() else { return -1 }
        let wait = earliest - now
        guard wait > .zero else { return 0 }
        let milliseconds = wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1
        return Int32(min(milliseconds, 60_000))
    }

    private func acceptPending() {
        while connections.count < settings.maxConnections {
            switch Socket.accept(listener) {
            case .success(let descriptor?):
                let reader = RequestReader(limits: settings.limits) { [responder] head in responder.bodyHandling(for: head) }
                connections.append(
                    Connection(
                        descriptor: descriptor, reader: reader,
                        deadline: .now + settings.requestTimeout))
            case .success(nil):
                return
            case .failure(let failure):
                // Out of descriptors or memory: try again a little later
                // instead of spinning on a listener that stays readable.
                logger.warning("loopback listener: accept failed", metadata: ["errno": "\(failure.code)"])
                acceptPausedUntil = .now + .milliseconds(100)
                return
            }
        }
    }

    /// Closes or answers the connections whose deadline has passed.
    private func expire(_ now: ContinuousClock.Instant) {
        if let paused = acceptPausedUntil, now >= paused { acceptPausedUntil = nil }
        for connection in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading where connection.received > 0:
                logger.debug("loopback listener: request not complete in time")
                answer(connection, responder.refuse(.requestTimeout))
            default:
                // Nothing sent (an unused preconnect), or the answer or the
                // client's close took too long.
                connection.close()
            }
        }
        connections.removeAll { $0.phase == .closed }
    }

    private func service(_ connection: Connection, events: Int16) {
        if events & Int16(truncatingIfNeeded: POLLNVAL) != 0 {
            connection.close()
            return
        }
        switch connection.phase {
        case .reading:
            read(connection)
        case .writing:
            flush(connection)
        case .lingering:
            linger(connection)
        case .closed:
            break
        }
    }

    private func read(_ connection: Connection) {
        // recv(2) needs the buffer's address (Socket.receive); what arrives goes to RequestReader as a safe slice.
        let transfer = buffer.withUnsafeMutableBytes { Socket.receive(connection.descriptor, into: $0) }
        switch transfer {
        case .bytes(let count):
            connection.received += count
            let step = connection.reader.feed(buffer[0..<count])
            switch step {
            case .needMore:
                break
            case .complete(let head, let body):
                answer(connection, responder.respond(to: head, body: body))
            case .refused(let status):
                answer(connection, responder.refuse(status))
            }
        case .wouldBlock:
            break
        case .end, .failed:
            // The client went away before its request was complete.
            connection.close()
        }
    }

    private func answer(_ connection: Connection, _ response: Response) {
        connection.reader = RequestReader(limits: settings.limits) { _ in .discard } // drop what it held
        connection.output = response.bytes
        connection.sent = 0
        connection.phase = .writing
        connection.deadline = .now + settings.lingerTimeout
        flush(connection)
    }

    private func flush(_ connection: Connection) {
        while connection.sent < connection.output.count {
            // send(2) needs the output's address (Socket.send); the view starts at the first byte not yet sent.
            let transfer = connection.output.withUnsafeBytes {
                Socket.send(connection.descriptor, UnsafeRawBufferPointer(rebasing: $0[connection.sent...]))
            }
            switch transfer {
            case .bytes(let count):
                connection.sent += count
            case .wouldBlock:
                return
            case .end, .failed:
                connection.close()
                return
            }
        }
        Socket.shutdownWrite(connection.descriptor)
        connection.output = []
        connection.phase = .lingering
    }

    private func linger(_ connection: Connection) {
        // recv(2) needs the buffer's address (Socket.receive); lingering bytes are only counted.
        let transfer = buffer.withUnsafeMutableBytes { Socket.receive(connection.descriptor, into: $0) }
        switch transfer {
        case .bytes(let count):
            connection.dropped += count
            if connection.dropped > settings.lingerBytes { connection.close() }
        case .wouldBlock:
            break
        case .end, .failed:
            connection.close()
        }
    }
}
