#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An HTTP request as AuthFlow sends it: a value, so it can be inspected in
/// tests and replayed by custom transports.
public struct HTTPTransportRequest: Sendable {
    /// `GET` or `POST`.
    public var method: String
    /// The full URL.
    public var url: URL
    /// Header fields, in order. May hold an `Authorization` header: never log it.
    public var headers: [(name: String, value: String)]
    /// The body, if any. May hold secrets: never log it.
    public var body: Data?
    /// The longest this request may take, in seconds, from start to the
    /// last byte of the response.
    public var timeout: TimeInterval
    /// What the request asks for; it decides the response's size limit
    /// (``ResponseLimits``) and names the endpoint in errors.
    public var purpose: Purpose
    /// The largest response body accepted, in bytes, overriding the
    /// transport's limit for ``purpose``; nil to use that limit.
    public var maxResponseBytes: Int?

    /// Creates a request.
    public init(
        method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: TimeInterval = 30,
        purpose: Purpose = .resource, maxResponseBytes: Int? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.purpose = purpose
        self.maxResponseBytes = maxResponseBytes
    }

    /// The value of the first header with `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

/// An HTTP response.
public struct HTTPTransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of the first header with `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    public var mediaType: String? {
        header("Content-Type").map {
            $0.split(separator: ";", maxSplits: 1)[0].trimmingWhitespace().lowercased()
        }
    }
}

/// The network seam. AuthFlow sends every request through one of these.
///
/// Implementations must not follow redirects (a token request must never be
/// re-sent elsewhere), must honour ``HTTPTransportRequest/timeout`` for the whole
/// exchange (a server that stalls or drips its body included), must bound
/// the body they read (``ResponseLimits``, ``HTTPTransportRequest/maxResponseBytes``)
/// while it arrives, throwing ``AuthFlowError/Category/invalidResponse`` when
/// it is larger, and must throw ``AuthFlowError`` with category
/// ``AuthFlowError/Category/network`` or ``AuthFlowError/Category/timeout``
/// when no complete response arrives.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the response, whatever its status.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse
}
