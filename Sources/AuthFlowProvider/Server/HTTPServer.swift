#if EmbeddedProvider // the EmbeddedProvider package trait
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The Hummingbird 2 application that carries the provider's endpoints:
/// the only file that knows the HTTP server framework.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
enum HTTPServer {
    /// Request bodies larger than this are refused (413).
    static let maximumBodySize = 64 * 1024
    /// The longest a header field (name and value) may be; the HTTP decoder
    /// refuses longer ones (400) before any endpoint runs.
    static let maximumHeaderFieldSize = 16 * 1024
    /// The most header bytes, all fields together.
    static let maximumHeaderListSize = 32 * 1024
    /// The most header fields.
    static let maximumHeaderFieldCount = 100
    /// A connection idle this long is closed, so a client that stalls
    /// half-way through a request does not hold it open.
    static let idleTimeout: TimeAmount = .seconds(30)

    /// An application on 127.0.0.1:`port` (0: ephemeral) that reports the
    /// bound port through `onRunning` before it serves anything.
    static func application(
        router: ProviderRouter, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some Service {
        let responder = CallbackResponder<BasicRequestContext> { request, _ in
            var request = request
            let body: ByteBuffer
            do {
                body = try await request.collectBody(upTo: maximumBodySize)
            } catch is NIOTooManyBytesError {
                // Refused as soon as it passes the limit, before it is buffered whole.
                return Response(status: .contentTooLarge, headers: [.connection: "close"])
            }
            let headers = request.headers.map { (name: $0.name.canonicalName, value: $0.value) }
            let response = await router.respond(
                ProviderRequest(
                    method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                    headers: headers, body: Array(buffer: body)))
            var fields = HTTPFields()
            for header in response.headers {
                if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
            }
            return Response(
                status: .init(code: response.status), headers: fields,
                body: .init(byteBuffer: ByteBuffer(bytes: response.body)))
        }
        return Application(
            responder: responder,
            server: .http1(
                configuration: .init(
                    idleTimeout: idleTimeout,
                    httpDecoderConfiguration: .init(
                        maxHeaderFieldSize: maximumHeaderFieldSize, maxHeaderListSize: maximumHeaderListSize,
                        maxHeaderFieldCount: maximumHeaderFieldCount))),
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "authflow-provider"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}
#endif
