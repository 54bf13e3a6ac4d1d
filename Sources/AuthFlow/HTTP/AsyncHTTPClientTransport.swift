#if AsyncHTTPClient && os(Linux) // the AsyncHTTPClient package trait, on Linux
import AsyncHTTPClient
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// On Linux with the `AsyncHTTPClient` package trait, the name every default
/// transport argument uses: ``AsyncHTTPClientTransport``, so that neither
/// FoundationNetworking nor libcurl is linked.
public typealias URLSessionTransport = AsyncHTTPClientTransport

/// An ``HTTPTransport`` on swift-server/async-http-client (SwiftNIO, TLS with
/// BoringSSL and the system's CA certificates), for servers and command-line
/// tools on Linux that should not link FoundationNetworking and libcurl.
///
/// Available on Linux with the package trait `AsyncHTTPClient` (the `CLI`
/// trait enables it), which makes it the transport of every default argument
/// (``URLSessionTransport`` names it there). It keeps the rules of the
/// URLSession transport: redirects are returned, never followed; a
/// `Content-Length` above the request's limit (``ResponseLimits``) fails the
/// request before the body is read, and a body that grows past the limit is
/// cut off at that point; the request's ``HTTPTransportRequest/timeout`` bounds
/// everything from connecting to the last byte; no cookies are kept and
/// nothing is cached; a refused connection fails at once, without retries;
/// a request without a `User-Agent` gets one naming the program.
///
/// It goes through the http proxies the environment names (`https_proxy`,
/// `http_proxy`, `no_proxy`, in either case), as curl does; loopback hosts
/// are always reached directly. A proxy variable it cannot use fails the
/// requests it would serve with ``AuthFlowError/Category/configuration``.
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// The response size limits this transport enforces.
    public let limits: ResponseLimits
    /// Which client sends a request to a URL (direct or through a proxy).
    let route: @Sendable (URL) throws -> HTTPClient

    /// Creates a transport; every transport shares one connection pool per
    /// proxy (and one direct), which lives as long as the process.
    /// - Parameter limits: the largest response body accepted per purpose.
    public init(limits: ResponseLimits = ResponseLimits()) {
        self.limits = limits
        route = { try Self.route($0, in: Self.environment, direct: Self.client, proxied: Self.proxied) }
    }

    /// A transport that sends through `route` (tests of the proxy path).
    init(limits: ResponseLimits = ResponseLimits(), route: @escaping @Sendable (URL) throws -> HTTPClient) {
        self.limits = limits
        self.route = route
    }

    /// The proxies of the process's environment, read once.
    static let environment = ProxyEnvironment(ProcessInfo.processInfo.environment)

    /// The process's client for each proxy the environment names, made on first use.
    static let proxiedClients = LockedValue<[ProxyEnvironment.Proxy: HTTPClient]>([:])

    /// The process's client for `proxy`.
    static func proxied(_ proxy: ProxyEnvironment.Proxy) -> HTTPClient {
        proxiedClients.withLock { clients in
            if let client = clients[proxy] { return client }
            let client = makeClient(proxy: proxy)
            clients[proxy] = client
            return client
        }
    }

    /// The client for `url`: `direct`, or `proxied` for the proxy the
    /// environment names for it; a request an unusable proxy variable would
    /// serve is a configuration error.
    static func route(
        _ url: URL, in environment: ProxyEnvironment, direct: HTTPClient, proxied: (ProxyEnvironment.Proxy) -> HTTPClient
    ) throws -> HTTPClient {
        switch environment.setting(for: url) {
        case nil: direct
        case .proxy(let proxy)?: proxied(proxy)
        case .unusable(let variable)?: throw ProxyEnvironment.unusable(variable)
        }
    }

    /// The User-Agent sent when a request has none: the program's name and AuthFlow.
    static let userAgent = "\(ProcessInfo.processInfo.processName) AuthFlow"

    /// The process's client: redirects disallowed (the 3xx itself is the
    /// answer), no retries of a refused connection, no decompression, the
    /// system's CA certificates. A static, so it is never shut down.
    static let client = makeClient(proxy: nil)

    /// A client with these rules, connecting directly or through `proxy`
    /// (a `CONNECT` tunnel for https, Basic authentication when it has a user).
    static func makeClient(proxy: ProxyEnvironment.Proxy?) -> HTTPClient {
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: TLSConfiguration.makeClientConfiguration(), redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: .seconds(30)), decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        if let proxy {
            configuration.proxy =
                if let user = proxy.user {
                    .server(host: proxy.host, port: proxy.port, authorization: .basic(username: user, password: proxy.password ?? ""))
                } else {
                    .server(host: proxy.host, port: proxy.port)
                }
        }
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Sends `request` without following redirects, within its timeout and response limit.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        // As URLSession does, a User-Agent when the request has none (some APIs refuse requests without one).
        if request.header("User-Agent") == nil { outgoing.headers.add(name: "User-Agent", value: Self.userAgent) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        let prepared = outgoing
        let client = try route(request.url)
        let what = "the \(request.purpose) from \(HTTPTransportRequest.endpointName(request.url))"
        do {
            return try await withDeadline(seconds: request.timeout, what: what) { [limits] in
                // A backstop only: the deadline above ends the request first.
                let deadline = NIODeadline.now() + .milliseconds(Int64(max(request.timeout, 0.001) * 1000) + 1000)
                let response = try await client.execute(prepared, deadline: deadline)
                return try await Self.read(response, for: request, limits: limits)
            }
        } catch let error as AuthFlowError {
            throw error
        } catch is CancellationError {
            throw AuthFlowError(.cancelled, "request cancelled")
        } catch {
            throw Self.map(error, url: request.url)
        }
    }

    /// The response with its body, read chunk by chunk within the limit for
    /// its status; an announced length over the limit is refused before any
    /// of the body is read, and nothing past the limit is buffered.
    static func read(
        _ response: HTTPClientResponse, for request: HTTPTransportRequest, limits: ResponseLimits
    ) async throws -> HTTPTransportResponse {
        let status = Int(response.status.code)
        let limit = limits.limit(for: request, status: status)
        if let announced = response.headers.first(name: "content-length").flatMap({ Int64($0) }), announced > Int64(limit) {
            throw ResponseLimits.tooLarge(request, limit: limit, announced: announced)
        }
        var body = Data()
        for try await chunk in response.body {
            guard body.count + chunk.readableBytes <= limit else { throw ResponseLimits.tooLarge(request, limit: limit) }
            body.append(contentsOf: chunk.readableBytesView)
        }
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        return HTTPTransportResponse(status: status, headers: headers, body: body)
    }

    /// The error AuthFlow reports for a failure of the client, naming the host only.
    static func map(_ error: any Error, url: URL) -> AuthFlowError {
        let host = url.host ?? "server"
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return AuthFlowError(.timeout, "no answer from \(host) in time")
            case .cancelled:
                return AuthFlowError(.cancelled, "request to \(host) cancelled")
            case .remoteConnectionClosed:
                return AuthFlowError(.network, "\(host) closed the connection before the response was complete")
            case .proxyAuthenticationRequired:
                return AuthFlowError(
                    .network, "the proxy asked for credentials to reach \(host)",
                    recovery: "Put the proxy's user and password in the proxy variable (http://user:password@host:port).")
            case .invalidProxyResponse:
                return AuthFlowError(.network, "the proxy refused the connection to \(host)")
            case .invalidURL, .emptyHost, .emptyScheme:
                return AuthFlowError(.network, "request to \(host) failed (not a URL the client can send to)")
            default:
                return AuthFlowError(.network, "request to \(host) failed (\(error))")
            }
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil {
                return AuthFlowError(.network, "could not resolve \(host)")
            }
            return AuthFlowError(.network, "could not connect to \(host)")
        case is NIOSSLError, is BoringSSLError, is NIOSSLExtraError:
            return AuthFlowError(.network, "TLS with \(host) failed")
        case let error as HTTPParserError where error == .invalidEOFState:
            // The connection closed before the announced body was complete.
            return AuthFlowError(.network, "\(host) closed the connection before the response was complete")
        case is HTTPParserError:
            return AuthFlowError(.invalidResponse, "\(host) sent a malformed HTTP response")
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return AuthFlowError(.network, "could not connect to \(host)")
        case is ChannelError:
            return AuthFlowError(.network, "\(host) closed the connection before the response was complete")
        default:
            return AuthFlowError(.network, "request to \(host) failed")
        }
    }
}
#endif
