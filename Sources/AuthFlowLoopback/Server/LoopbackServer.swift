import AuthFlow
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Owns the listener's thread and lets async code stop it.
///
/// The thread runs a ``ServerLoop``; a byte on the wake-up pipe makes it
/// look at the stop flag. ``stop()`` waits (without blocking a thread) until
/// the loop has closed every descriptor; ``requestStop()`` only asks, for
/// `deinit`. Both may be called any number of times, from any thread.
final class LoopbackServer: Sendable {
    private struct Control: Sendable {
        var stopRequested = false
        var finished = false
        /// The pipe's write end; -1 once the loop has finished and closed it.
        var wake: Int32
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The port bound on 127.0.0.1.
    let port: Int
    /// The descriptors the server opened (listening socket, pipe ends), for tests.
    let descriptors: [Int32]
    private let control: LockedValue<Control>

    private init(port: Int, descriptors: [Int32], wake: Int32) {
        self.port = port
        self.descriptors = descriptors
        control = LockedValue(Control(wake: wake))
    }

    /// Binds 127.0.0.1:`port` and starts serving on a thread of its own.
    static func start(
        port: Int, responder: CallbackResponder, settings: ServerSettings,
        logger: Logger
    ) throws(Socket.Failure) -> LoopbackServer {
        let (listener, bound) = try Socket.listen(port: port, backlog: settings.backlog)
        let pipe: (read: Int32, write: Int32)
        do {
            pipe = try Socket.pipe()
        } catch {
            Socket.close(listener)
            throw error
        }
        let server = LoopbackServer(port: bound, descriptors: [listener, pipe.read, pipe.write], wake: pipe.write)
        let started = DetachedThread.start {
            ThreadName.set("authflow-\(bound)")
            let loop = ServerLoop(
                listener: listener, wake: pipe.read, responder: responder, settings: settings,
                logger: logger, stopRequested: { server.isStopRequested })
            if let failure = loop.run() {
                responder.inbox.close(
                    with: AuthFlowError(
                        .network, "the loopback listener stopped: \(failure.call) failed (\(Socket.describe(failure.code)))",
                        underlyingError: POSIXError(POSIXErrorCode(rawValue: failure.code) ?? .EIO)))
            }
            server.finished()
        }
        guard started else {
            for descriptor in server.descriptors { Socket.close(descriptor) }
            throw Socket.Failure(call: "pthread_create", code: POSIXErrorCode.EAGAIN.rawValue)
        }
        return server
    }

    private var isStopRequested: Bool {
        control.withLock { $0.stopRequested }
    }

    /// Asks the thread to stop and returns at once.
    func requestStop() {
        control.withLock { control in
            guard !control.finished, !control.stopRequested else { return }
            control.stopRequested = true
            Socket.signal(control.wake)
        }
    }

    /// Stops the thread and returns once it has closed every descriptor.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = control.withLock { control in
                if control.finished { return true }
                control.waiters.append(continuation)
                if !control.stopRequested {
                    control.stopRequested = true
                    Socket.signal(control.wake)
                }
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Called by the thread as its last act.
    private func finished() {
        let waiters = control.withLock { control in
            control.finished = true
            Socket.close(control.wake)
            control.wake = -1
            defer { control.waiters = [] }
            return control.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
