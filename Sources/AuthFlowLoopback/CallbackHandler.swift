import AuthFlow
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Answers one HTTP request on the loopback listener and closes the connection.
final class CallbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let path: String
    private let inbox: CallbackInbox
    private let logger: Logger
    private var head: HTTPRequestHead?

    init(path: String, inbox: CallbackInbox, logger: Logger) {
        self.path = path
        self.inbox = inbox
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let target = head.uri
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let requestPath = String(parts[0])
        guard requestPath == path, head.method == .GET else {
            logger.debug("loopback listener: not the callback", metadata: ["path": "\(requestPath.prefix(64))"])
            write(status: .notFound, page: Pages.notFound, context: context)
            return
        }
        let query = parts.count > 1 ? String(parts[1]) : ""
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
