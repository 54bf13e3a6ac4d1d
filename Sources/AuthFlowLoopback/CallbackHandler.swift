import AuthFlow
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Answers one HTTP request on the loopback listener and closes the connection.
///
/// It reads at most ``Limits`` of a request: a longer request target, a
/// larger body or (through the decoder's limits, set by the listener) more
/// header bytes is answered with an error page and the connection closed,
/// without reading the rest.
///
/// The callback arrives either as a GET with the response in the query, or,
/// only when the authorization request asked for `response_mode=form_post`,
/// as a POST with an `application/x-www-form-urlencoded` body. Both pass the
/// same rule before they are handed on: the first request carrying the
/// expected `state` wins, everything else is refused.
///
/// The handler lives on its channel's event loop only (added with the
/// pipeline's synchronous operations), so it needs no lock and is not `Sendable`.
final class CallbackHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// How much of a request the listener reads.
    enum Limits {
        /// The request target (path and query): a callback's query holds a
        /// code, a state and a few short parameters.
        static let target = 8 * 1024
        /// A form_post body: Sign in with Apple's carries an ID token and the
        /// user's name as JSON; 64 KiB leaves ample room.
        static let body = 64 * 1024
        /// All header names and values together, and each one of them.
        static let headers = 16 * 1024
        /// The number of header fields.
        static let headerCount = 100
    }

    private enum Phase {
        /// Waiting for a request head.
        case idle
        /// Reading the body of a form_post callback.
        case collecting(HTTPRequestHead, ByteBuffer)
        /// Reading (and dropping) the body of a request that gets `status`.
        case discarding(HTTPRequestHead, received: Int)
        /// Answered; whatever else arrives is ignored.
        case answered
    }

    private let path: String
    private let inbox: CallbackInbox
    private let logger: Logger
    private var phase = Phase.idle

    init(path: String, inbox: CallbackInbox, logger: Logger) {
        self.path = path
        self.inbox = inbox
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), phase) {
        case (.head(let head), .idle):
            begin(head, context: context)
        case (.body(var chunk), .collecting(let head, var body)):
            guard body.readableBytes + chunk.readableBytes <= Limits.body else {
                tooLarge(context: context)
                return
            }
            body.writeBuffer(&chunk)
            phase = .collecting(head, body)
        case (.body(let chunk), .discarding(let head, let received)):
            guard received + chunk.readableBytes <= Limits.body else {
                tooLarge(context: context)
                return
            }
            phase = .discarding(head, received: received + chunk.readableBytes)
        case (.end, .collecting(let head, let body)):
            phase = .answered
            respondToFormPost(head, body: body, context: context)
        case (.end, .discarding(let head, _)):
            phase = .answered
            respond(to: head, context: context)
        default:
            break
        }
    }

    /// A request the decoder refused (malformed, or over the header limits):
    /// the protocol error handler before this one has answered 400; the
    /// connection is closed so the client is not left waiting.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        phase = .answered
        logger.debug("loopback listener: malformed or oversized request refused")
        let channel = context.channel
        context.flush()
        channel.eventLoop.execute { channel.close(promise: nil) }
    }

    private func begin(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        guard head.uri.utf8.count <= Limits.target else {
            phase = .answered
            logger.debug("loopback listener: request target too long")
            write(status: .uriTooLong, page: Pages.unexpected, context: context)
            return
        }
        if let length = head.headers.first(name: "Content-Length").flatMap(Int.init), length > Limits.body {
            tooLarge(context: context)
            return
        }
        let requestPath = String(head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        if head.method == .POST, requestPath == path, inbox.expectsFormPost, !head.uri.contains("?") {
            guard Self.isFormEncoded(head.headers.first(name: "Content-Type")) else {
                phase = .answered
                logger.debug("loopback listener: form_post callback without a form body")
                write(status: .unsupportedMediaType, page: Pages.unexpected, context: context)
                return
            }
            phase = .collecting(head, context.channel.allocator.buffer(capacity: 0))
        } else {
            phase = .discarding(head, received: 0)
        }
    }

    private func tooLarge(context: ChannelHandlerContext) {
        phase = .answered
        logger.debug("loopback listener: request body too large")
        write(status: .payloadTooLarge, page: Pages.unexpected, context: context)
    }

    /// `application/x-www-form-urlencoded`, with or without parameters (charset).
    static func isFormEncoded(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces)
        return type.lowercased() == "application/x-www-form-urlencoded"
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let target = head.uri
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let requestPath = String(parts[0])
        guard requestPath == path, head.method == .GET else {
            logger.debug("loopback listener: not the callback", metadata: ["path": "\(requestPath.prefix(64))", "method": "\(head.method)"])
            write(status: .notFound, page: Pages.notFound, context: context)
            return
        }
        deliver(target: target, query: parts.count > 1 ? String(parts[1]) : "", context: context)
    }

    /// A form_post body is a form-encoded parameter list, as a query is: it is
    /// handed on as the query of the callback URL, so that one validation
    /// (redirect URI, state, iss, error, code) serves both.
    private func respondToFormPost(_ head: HTTPRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        guard let text = body.getString(at: body.readerIndex, length: body.readableBytes), FormEncoding.decode(text) != nil else {
            logger.debug("loopback listener: form_post body is not a valid form")
            write(status: .badRequest, page: Pages.unexpected, context: context)
            return
        }
        let query = text.trimmingCharacters(in: .whitespacesAndNewlines)
        deliver(target: path + "?" + query, query: query, context: context)
    }

    private func deliver(target: String, query: String, context: ChannelHandlerContext) {
        let state = FormEncoding.decode(query)?.first { $0.0 == "state" }?.1
        if inbox.offer(target: target, state: state) {
            logger.debug("loopback listener: callback received")
            write(status: .ok, page: Pages.done, context: context)
        } else {
            logger.debug("loopback listener: callback ignored (state missing, wrong, or already answered)")
            write(status: .badRequest, page: Pages.unexpected, context: context)
        }
    }

    private func write(status: HTTPResponseStatus, page: String, context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: page.utf8.count)
        buffer.writeString(page)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        headers.add(name: "Content-Security-Policy", value: "default-src 'none'; style-src 'unsafe-inline'")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// The fixed pages the listener serves. They echo nothing from the request.
enum Pages {
    private static func page(_ title: String, _ text: String) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title>\
        <style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;text-align:center}</style>\
        </head><body><h1>\(title)</h1><p>\(text)</p></body></html>
        """
    }

    static let done = page("Signed in", "You can close this window and return to the application.")
    static let unexpected = page("Unexpected response", "This sign-in response was not expected. Close this window and start again.")
    static let notFound = page("Not found", "Nothing here.")
}
