import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A tiny loopback token endpoint: answers `POST /token` with a refresh
/// response after a fixed delay, counting the requests it gets. Every
/// answer carries a new access token (`at-<n>`), so callers can tell which
/// refresh they were given.
final class TokenServer: Sendable {
    let port: Int
    let delay: TimeAmount
    private let channel: any Channel
    private let counter: RequestCounter

    private init(channel: any Channel, counter: RequestCounter, delay: TimeAmount) {
        self.channel = channel
        self.counter = counter
        self.delay = delay
        port = channel.localAddress?.port ?? 0
    }

    /// Starts listening on 127.0.0.1 (an ephemeral port).
    static func start(delay: TimeAmount) async throws -> TokenServer {
        let counter = RequestCounter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(TokenHandler(counter: counter, delay: delay))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TokenServer(channel: channel, counter: counter, delay: delay)
    }

    /// Token requests answered so far.
    var requests: Int { counter.value }

    var tokenURL: URL { URL(string: "http://127.0.0.1:\(port)/token")! }

    func stop() async throws {
        try await channel.close()
    }
}

/// A thread-safe counter.
final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    /// Increments and returns the new value.
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}

private final class TokenHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let counter: RequestCounter
    private let delay: TimeAmount
    private var head: HTTPRequestHead?

    init(counter: RequestCounter, delay: TimeAmount) {
        self.counter = counter
        self.delay = delay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            let keepAlive = head.isKeepAlive
            let (status, body): (HTTPResponseStatus, String)
            if head.method == .POST, head.uri == "/token" {
                let n = counter.next()
                status = .ok
                body =
                    #"{"access_token":"at-\#(n)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(n)","scope":"openid profile"}"#
            } else {
                status = .notFound
                body = #"{"error":"not_found"}"#
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Cache-Control", value: "no-store")
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
            let response = HTTPResponseHead(version: head.version, status: status, headers: headers)
            let buffer = context.channel.allocator.buffer(string: body)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: delay) {
                let context = bound.value
                context.write(NIOAny(HTTPServerResponsePart.head(response)), promise: nil)
                context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(buffer))), promise: nil)
                let done = context.writeAndFlushPromise()
                if !keepAlive { done.futureResult.whenComplete { _ in bound.value.close(promise: nil) } }
            }
        }
    }
}

extension ChannelHandlerContext {
    fileprivate func writeAndFlushPromise() -> EventLoopPromise<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)), promise: promise)
        return promise
    }
}
