public import AuthFlow
public import Foundation
public import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The RFC 8252 §7.3 loopback redirect listener: an HTTP server on
/// 127.0.0.1 that waits for the one authorization response a native app
/// expects.
///
/// The response arrives as a GET (the query) or, when the request asked for
/// `response_mode=form_post`, as a POST with a form body (Sign in with Apple,
/// providers configured for form_post); without that a POST is refused.
/// The listener reads at most 8 KiB of request target, 16 KiB of headers and
/// 64 KiB of body.
///
/// It binds the literal IPv4 loopback address (never `localhost`, which may
/// resolve elsewhere), on an ephemeral port unless one is given. Requests for
/// any other path get 404; callback requests whose `state` does not match are
/// answered with 400 and ignored. Pages never echo anything from the request.
public final class LoopbackListener: Sendable {
    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    public let redirectURI: URL
    /// The port actually bound.
    public let port: Int
    private let channel: any Channel
    private let inbox: CallbackInbox
    private let logger: Logger

    private init(channel: any Channel, port: Int, path: String, inbox: CallbackInbox, logger: Logger) {
        self.channel = channel
        self.port = port
        self.inbox = inbox
        self.logger = logger
        redirectURI = URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Starts listening on 127.0.0.1.
    ///
    /// - Parameters:
    ///   - port: the port, or 0 for an ephemeral one.
    ///   - path: the callback path (default `/callback`).
    ///   - logger: where the listener logs (never a code or state).
    /// - Throws: `AuthFlowError` (`configuration`) when the port cannot be bound.
    public static func start(port: Int = 0, path: String = "/callback", logger: Logger = Logger(label: "AuthFlow.Loopback")) async throws -> LoopbackListener {
        guard (0...65535).contains(port) else { throw AuthFlowError(.configuration, "port must be 0…65535") }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw AuthFlowError(.configuration, "callback path must start with / and have no query")
        }
        let inbox = CallbackInbox()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                // Runs on the channel's event loop: the handler is added there
                // and never leaves it.
                channel.eventLoop.makeCompletedFuture {
                    var limits = NIOHTTPDecoderLimitConfiguration()
                    limits.maxHeaderFieldSize = CallbackHandler.Limits.headers
                    limits.maxHeaderListSize = CallbackHandler.Limits.headers
                    limits.maxHeaderFieldCount = CallbackHandler.Limits.headerCount
                    let operations = channel.pipeline.syncOperations
                    try operations.configureHTTPServerPipeline(withErrorHandling: true, withEncoderConfiguration: .init(),
                                                               withDecoderLimitConfiguration: limits)
                    try operations.addHandler(CallbackHandler(path: path, inbox: inbox, logger: logger))
                }
            }
            .childChannelOption(.maxMessagesPerRead, value: 1)
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        } catch {
            throw AuthFlowError(.configuration, "could not listen on 127.0.0.1:\(port) (\(error))",
                                recovery: port == 0 ? "Check that 127.0.0.1 is available." : "Port \(port) is in use: choose another with --port, or leave it out for an ephemeral port (when the provider allows any loopback port).")
        }
        guard let bound = channel.localAddress?.port else {
            try? await channel.close()
            throw AuthFlowError(.configuration, "could not read the bound port")
        }
        logger.debug("loopback listener started", metadata: ["port": "\(bound)", "path": "\(path)"])
        return LoopbackListener(channel: channel, port: bound, path: path, inbox: inbox, logger: logger)
    }

    /// Waits for the callback whose `state` is the state of `request` and returns its full URL.
    ///
    /// - Throws: `AuthFlowError` `timeout` after `timeout` seconds, `cancelled`
    ///   when the task is cancelled.
    public func waitForCallback(for request: AuthorizationRequest, timeout: TimeInterval) async throws -> URL {
        prepare(for: request)
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { [inbox] in
                    try await withCheckedThrowingContinuation { continuation in inbox.wait(id: id, continuation) }
                }
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(timeout, 0.001) * 1_000_000_000))
                    throw AuthFlowError(.timeout, "no redirect reached the loopback listener within \(Int(timeout.rounded(.up))) s")
                }
                defer {
                    group.cancelAll()
                    inbox.cancel(id: id, with: AuthFlowError(.cancelled, "stopped waiting for the redirect"))
                }
                let target: String
                do {
                    target = try await group.next()!
                } catch is CancellationError {
                    throw AuthFlowError(.cancelled, "sign-in cancelled")
                }
                guard let url = URL(string: "http://127.0.0.1:\(port)\(target)") else {
                    throw AuthFlowError(.invalidResponse, "the callback request target is not a valid URL")
                }
                return url
            }
        } onCancel: { [inbox] in
            inbox.cancel(id: id, with: AuthFlowError(.cancelled, "sign-in cancelled"))
        }
    }

    /// Starts accepting the callback of `request` now, before anyone waits
    /// for it: call this before opening the browser, so that a redirect that
    /// arrives at once is kept. ``waitForCallback(for:timeout:)`` calls it too.
    public func prepare(for request: AuthorizationRequest) {
        inbox.expect(request)
    }

    /// Stops listening. Safe to call more than once.
    public func close() async {
        try? await channel.close()
        logger.debug("loopback listener closed")
    }
}
