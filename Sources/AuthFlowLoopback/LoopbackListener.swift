public import AuthFlow
public import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The RFC 8252 §7.3 loopback redirect listener: an HTTP server on
/// 127.0.0.1 that waits for the one authorization response a native app
/// expects.
///
/// The response arrives as a GET (the query) or, when the request asked for
/// `response_mode=form_post`, as a POST with a form body (Sign in with Apple,
/// providers configured for form_post); without that a POST is refused.
/// The listener reads at most 8 KiB of request target (414 beyond),
/// 16 KiB and 100 fields of headers (400) and 64 KiB of body (413), and
/// refuses a request as soon as it is over a limit; other methods get 405.
///
/// It binds the literal IPv4 loopback address (never `localhost`, which may
/// resolve elsewhere), on an ephemeral port unless one is given. The callback
/// path also serves one segment more, the issuer-specific redirect URI of a
/// client that signs in to a server someone else named
/// (`IssuerSpecificRedirect`): a callback there is handed to the engine,
/// which accepts it only at the redirect URI of the request it sent.
/// Requests for any other path get 404; callback requests whose `state` does not match are
/// answered with 400 and ignored. The callback with the right `state` gets
/// "Signed in" only when the engine's callback validation accepts its code,
/// an error page otherwise. Pages never echo anything from the request.
/// Every answer closes its connection.
///
/// Connections are served side by side on one thread of the listener's own
/// (no task of yours is blocked): a connection that sends nothing, such as a
/// browser's preconnect, or sends slowly never holds up the callback; each
/// must deliver its request within 5 seconds.
/// ``close()`` (or releasing the listener) stops the thread and closes every
/// socket.
public final class LoopbackListener: Sendable {
    /// The redirect URI to register and send: `http://127.0.0.1:PORT/callback`.
    public let redirectURI: URL
    /// The port actually bound.
    public let port: Int
    let server: LoopbackServer
    private let inbox: CallbackInbox
    private let logger: Logger

    private init(server: LoopbackServer, path: String, inbox: CallbackInbox, logger: Logger) {
        self.server = server
        self.port = server.port
        self.inbox = inbox
        self.logger = logger
        redirectURI = URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }

    deinit {
        server.requestStop()
    }

    /// Whether `uri` is a redirect URI this listener receives: its
    /// ``redirectURI``, or that with one more path segment (an
    /// `IssuerSpecificRedirect` URI).
    public func receives(_ uri: URL) -> Bool {
        uri == redirectURI
            || (uri.scheme == redirectURI.scheme && uri.host == redirectURI.host && uri.port == redirectURI.port
                && uri.query == nil && uri.fragment == nil
                && CallbackResponder.isCallbackPath(uri.path, under: redirectURI.path))
    }

    /// Starts listening on 127.0.0.1.
    ///
    /// - Parameters:
    ///   - port: the port, or 0 for an ephemeral one.
    ///   - path: the callback path (default `/callback`).
    ///   - logger: where the listener logs (never a code or state).
    /// - Throws: `AuthFlowError` (`configuration`) when the port cannot be
    ///   bound; a port in use has `POSIXError(.EADDRINUSE)` as its
    ///   `underlyingError`.
    public static func start(port: Int = 0, path: String = "/callback", logger: Logger = .authFlow("Loopback")) async throws
        -> LoopbackListener
    {
        try await start(port: port, path: path, settings: ServerSettings(), logger: logger)
    }

    /// ``start(port:path:logger:)`` with other connection settings (tests).
    static func start(
        port: Int = 0, path: String = "/callback", settings: ServerSettings,
        logger: Logger = .authFlow("Loopback")
    ) async throws -> LoopbackListener {
        guard (0...65535).contains(port) else { throw AuthFlowError(.configuration, "port must be 0…65535") }
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw AuthFlowError(.configuration, "callback path must start with / and have no query")
        }
        let inbox = CallbackInbox()
        let responder = CallbackResponder(path: path, inbox: inbox, logger: logger)
        let server: LoopbackServer
        do {
            server = try LoopbackServer.start(port: port, responder: responder, settings: settings, logger: logger)
        } catch {
            throw Self.bindError(error, port: port)
        }
        logger.debug("loopback listener started", metadata: ["port": "\(server.port)", "path": "\(path)"])
        return LoopbackListener(server: server, path: path, inbox: inbox, logger: logger)
    }

    static func bindError(_ failure: Socket.Failure, port: Int) -> AuthFlowError {
        let underlying = POSIXError(POSIXErrorCode(rawValue: failure.code) ?? .EIO)
        if failure.code == EADDRINUSE {
            return AuthFlowError(
                .configuration, "port \(port) on 127.0.0.1 is in use",
                recovery: "Choose another port, or port 0 for an ephemeral port (when the provider allows any loopback port).",
                remedy: .chooseAnotherPort, underlyingError: underlying)
        }
        if failure.code == EACCES {
            return AuthFlowError(
                .configuration, "not allowed to listen on port \(port) of 127.0.0.1",
                recovery: "Choose a port above 1023, or port 0 for an ephemeral port.", remedy: .chooseAnUnprivilegedPort,
                underlyingError: underlying)
        }
        return AuthFlowError(
            .configuration, "could not listen on 127.0.0.1:\(port) (\(failure.call): \(Socket.describe(failure.code)))",
            recovery: "Check that 127.0.0.1 is available.", underlyingError: underlying)
    }

    /// Waits for the callback whose `state` is the state of `request` and returns its full URL.
    ///
    /// The browser is answered at once with the outcome of the engine's
    /// `AuthorizationRequest.validateCallback(_:)` on that URL:
    /// "Signed in" for a code it accepts, an error page (echoing nothing the
    /// server sent) for an error response or anything else.
    ///
    /// - Throws: `AuthFlowError` `timeout` after `timeout` seconds, `cancelled`
    ///   when the task is cancelled or the listener is closed.
    public func waitForCallback(for request: AuthorizationRequest, timeout: TimeInterval) async throws -> URL {
        prepare(for: request)
        return try await waitForDelivery(timeout: timeout, waitingFor: "redirect", cancelled: "sign-in cancelled")
    }

    /// Serves the one-time page that POSTs `request` to the provider's
    /// `end_session_endpoint`, and returns its URL, to open in the browser
    /// instead of the end-session URL: the ID token stays off command lines
    /// and out of URLs. The page is served to the first GET only. When the
    /// request has a `EndSessionRequest.postLogoutRedirectURI`
    /// (this listener's ``redirectURI``), the listener also starts accepting
    /// the provider's redirect back; wait for it with
    /// ``waitForEndSessionRedirect(for:timeout:)``.
    public func endSessionPage(for request: EndSessionRequest) -> URL {
        let page = EndSessionPage(request)
        inbox.serveOnce(page.response, at: page.path)
        if request.postLogoutRedirectURI != nil { inbox.expect(.endSession(request)) }
        return URL(string: "http://127.0.0.1:\(port)\(page.path)")!
    }

    /// Whether the browser has loaded the page of ``endSessionPage(for:)``:
    /// from then on the listener is needed only for the provider's redirect
    /// back, and a caller may stop waiting for it without breaking the page.
    package var endSessionPageServed: Bool { inbox.oneTimePageServed }

    /// Waits for the provider's redirect back after RP-initiated logout: the
    /// first request to ``redirectURI`` carrying the request's `state`; the
    /// browser then sees "Signed out". Returns its full URL (check it with
    /// `EndSessionRequest.validateRedirect(_:)`).
    ///
    /// - Throws: `AuthFlowError` `configuration` when the request has no
    ///   post-logout redirect URI of this listener, `timeout` after
    ///   `timeout` seconds, `cancelled` when the task is cancelled or the
    ///   listener is closed.
    public func waitForEndSessionRedirect(for request: EndSessionRequest, timeout: TimeInterval) async throws -> URL {
        guard request.postLogoutRedirectURI == redirectURI else {
            throw AuthFlowError(.configuration, "the end-session request's post_logout_redirect_uri is not this listener's")
        }
        inbox.expect(.endSession(request))
        return try await waitForDelivery(
            timeout: timeout, waitingFor: "post-logout redirect", cancelled: "stopped waiting for the post-logout redirect")
    }

    private func waitForDelivery(timeout: TimeInterval, waitingFor what: String, cancelled: String) async throws -> URL {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { [inbox] in
                    try await withCheckedThrowingContinuation { continuation in inbox.wait(id: id, continuation) }
                }
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(timeout, 0.001) * 1_000_000_000))
                    throw AuthFlowError(.timeout, "no \(what) reached the loopback listener within \(Int(timeout.rounded(.up))) s")
                }
                defer {
                    group.cancelAll()
                    inbox.cancel(id: id, with: AuthFlowError(.cancelled, "stopped waiting for the \(what)"))
                }
                let target: String
                do {
                    target = try await group.next()!
                } catch is CancellationError {
                    throw AuthFlowError(.cancelled, cancelled)
                }
                guard let url = URL(string: "http://127.0.0.1:\(port)\(target)") else {
                    throw AuthFlowError(.invalidResponse, "the callback request target is not a valid URL")
                }
                return url
            }
        } onCancel: { [inbox] in
            inbox.cancel(id: id, with: AuthFlowError(.cancelled, cancelled))
        }
    }

    /// Starts accepting the callback of `request` now, before anyone waits
    /// for it: call this before opening the browser, so that a redirect that
    /// arrives at once is kept. ``waitForCallback(for:timeout:)`` calls it too.
    public func prepare(for request: AuthorizationRequest) {
        inbox.expect(.authorization(request))
    }

    /// Stops listening: closes the socket and every open connection, and
    /// ends the listener's thread before it returns. A task still waiting
    /// in ``waitForCallback(for:timeout:)`` gets `AuthFlowError`
    /// `cancelled`. Safe to call more than once.
    public func close() async {
        inbox.close(with: AuthFlowError(.cancelled, "the loopback listener was closed"))
        await server.stop()
        logger.debug("loopback listener closed")
    }
}
