#if EmbeddedProvider // the EmbeddedProvider package trait
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The Hummingbird 2 application that carries the provider's endpoints
/// (``ProviderRoutes``), and the one place that turns a Hummingbird request
/// into the endpoints' ``ProviderRequest`` and their answer back.
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
        routes: ProviderRoutes, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void
    ) -> some Service {
        Application(
            router: routes.router(),
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

    /// Reads the body (413 as soon as it passes ``maximumBodySize``, before
    /// it is buffered whole), then answers with `endpoint`.
    static func respond(to request: Request, with endpoint: ProviderEndpoint) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumBodySize)
        } catch is NIOTooManyBytesError {
            return Response(status: .contentTooLarge, headers: [.connection: "close"])
        }
        let headers = request.headers.map { (name: $0.name.canonicalName, value: $0.value) }
        return await endpoint(
            ProviderRequest(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                headers: headers, body: Array(buffer: body))
        ).hummingbird
    }
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
extension ProviderResponse {
    /// The response as Hummingbird sends it.
    var hummingbird: Response {
        var fields = HTTPFields()
        for header in headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
#endif
