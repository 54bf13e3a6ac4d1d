#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// On Linux with the AsyncHTTPClient package trait, `URLSessionTransport` names
// AsyncHTTPClientTransport instead, and neither FoundationNetworking nor the
// rest of swift-corelibs-foundation is linked: the engine's other files import
// FoundationEssentials alone on Linux.
#if !(AsyncHTTPClient && os(Linux))
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: URLSession with redirects refused, response
/// bodies bounded while they arrive, and a deadline on the whole exchange.
///
/// Redirects are refused by a session-level delegate, because URLSession on
/// Linux ignores per-task delegates for this and rewrites 307/308 POSTs.
///
/// Bodies are read through the same delegate, chunk by chunk: a
/// `Content-Length` above the request's limit (``ResponseLimits``) fails the
/// request before the body is read, and a body that grows past the limit
/// (whatever its `Content-Length` said) is cancelled at that point. The
/// request's ``HTTPTransportRequest/timeout`` bounds everything from connecting to the
/// last byte; a server that stalls before its headers, between chunks or
/// drips its body one byte at a time ends in ``AuthFlowError/Category/timeout``
/// when it runs out.
///
/// On Linux, URLSession stalls on a 401 that carries a `WWW-Authenticate:
/// Basic` challenge (swift-corelibs-foundation), whatever the delegate
/// answers. The delegate therefore cancels such challenges and the transport
/// returns the 401 with its headers and an empty body; the token endpoint
/// reads that as `invalid_client` (RFC 6749 §5.2).
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate = SessionDelegate()
    /// The response size limits this transport enforces.
    public let limits: ResponseLimits

    /// Creates a transport with an ephemeral session (no cookies, no cache).
    /// - Parameter limits: the largest response body accepted per purpose.
    public init(limits: ResponseLimits = ResponseLimits()) {
        self.limits = limits
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends `request` without following redirects, within its timeout and response limit.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let prepared = urlRequest
        let what = "the \(request.purpose) from \(HTTPTransportRequest.endpointName(request.url))"
        do {
            let (data, response) = try await withDeadline(seconds: request.timeout, what: what) { [session, delegate, limits] in
                try await URLSessionTransport.load(prepared, for: request, limits: limits, session: session, delegate: delegate)
            }
            var headers: [(name: String, value: String)] = []
            for (name, value) in response.allHeaderFields {
                headers.append((name: "\(name)", value: "\(value)"))
            }
            return HTTPTransportResponse(status: response.statusCode, headers: headers, body: data)
        } catch let error as AuthFlowError {
            throw error
        } catch let error as URLError {
            throw URLSessionTransport.map(error, url: request.url)
        } catch is CancellationError {
            throw AuthFlowError(.cancelled, "request cancelled")
        } catch {
            throw AuthFlowError(.network, "request to \(request.url.host ?? "server") failed")
        }
    }

    /// Runs one data task through the session delegate, which collects the
    /// body within the limit; cancelling the calling task ends the wait at
    /// once and cancels the data task.
    ///
    /// URLSession on Linux creates, resumes and cancels tasks by waiting for
    /// its work queue, which a fast endless body keeps busy: those calls are
    /// made on ``URLSessionTransport/calls``, never on a thread of the Swift
    /// concurrency pool, so a deadline or a cancellation is never held up.
    private static func load(
        _ urlRequest: URLRequest, for request: HTTPTransportRequest, limits: ResponseLimits,
        session: URLSession, delegate: SessionDelegate
    ) async throws -> (Data, HTTPURLResponse) {
        let state = LockedValue<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                calls.async {
                    let task = session.dataTask(with: urlRequest)
                    delegate.register(task.taskIdentifier, Exchange(continuation: continuation, request: request, limits: limits))
                    let cancelled = state.withLock { state -> Bool in
                        state.task = task
                        return state.cancelled
                    }
                    if cancelled {
                        delegate.finish(task.taskIdentifier, .failure(CancellationError()))
                        task.cancel()
                    } else {
                        task.resume()
                    }
                }
            }
        } onCancel: {
            let task = state.withLock { state -> URLSessionDataTask? in
                state.cancelled = true
                return state.task
            }
            if let task {
                delegate.finish(task.taskIdentifier, .failure(CancellationError()))
                calls.async { task.cancel() }
            }
        }
    }

    /// Where URLSession's blocking calls (task creation, resume, cancel) run.
    static let calls = DispatchQueue(label: "AuthFlow.URLSessionTransport", attributes: .concurrent)

    static func map(_ error: URLError, url: URL) -> AuthFlowError {
        let host = url.host ?? "server"
        switch error.code {
        case .timedOut:
            return AuthFlowError(.timeout, "no answer from \(host) in time")
        case .cancelled:
            return AuthFlowError(.cancelled, "request to \(host) cancelled")
        case .cannotConnectToHost:
            return AuthFlowError(.network, "could not connect to \(host)")
        case .cannotFindHost, .dnsLookupFailed:
            return AuthFlowError(.network, "could not resolve \(host)")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return AuthFlowError(.network, "TLS with \(host) failed")
        case .badServerResponse, .cannotParseResponse:
            return AuthFlowError(.invalidResponse, "\(host) sent a malformed HTTP response")
        case .networkConnectionLost:
            return AuthFlowError(.network, "\(host) closed the connection before the response was complete")
        default:
            return AuthFlowError(.network, "request to \(host) failed (\(error.code.rawValue))")
        }
    }
}

/// One request in flight: who waits for it, and the body so far.
private struct Exchange {
    let continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
    let request: HTTPTransportRequest
    let limits: ResponseLimits
    var response: HTTPURLResponse?
    var limit: Int
    var body = Data()

    init(continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>, request: HTTPTransportRequest, limits: ResponseLimits) {
        self.continuation = continuation
        self.request = request
        self.limits = limits
        limit = limits.limit(for: request)
    }
}

/// The session's delegate: collects each task's body within its limit,
/// refuses every redirect (so the 3xx response itself is returned) and, on
/// Linux, cancels authentication challenges, remembering their 401 response.
///
/// Its state is the table of exchanges in flight behind a lock; an exchange
/// is removed exactly once, by whichever of completion, the limit or
/// cancellation comes first, and only that one resumes the caller.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = LockedValue<[Int: Exchange]>([:])
    private let challenged = LockedValue<[Int: HTTPURLResponse]>([:])

    fileprivate func register(_ id: Int, _ exchange: Exchange) {
        exchanges.withLock { $0[id] = exchange }
    }

    /// Ends the exchange `id` with `result`, unless it has already ended.
    func finish(_ id: Int, _ result: Result<(Data, HTTPURLResponse), any Error>) {
        guard let exchange = exchanges.withLock({ $0.removeValue(forKey: id) }) else { return }
        challenged.withLock { _ = $0.removeValue(forKey: id) }
        exchange.continuation.resume(with: result)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            finish(dataTask.taskIdentifier, .failure(AuthFlowError.invalidResponse("not an HTTP response")))
            completionHandler(.cancel)
            return
        }
        let tooLarge: AuthFlowError? = exchanges.withLock { table in
            guard var exchange = table[dataTask.taskIdentifier] else { return nil }
            exchange.response = http
            exchange.limit = exchange.limits.limit(for: exchange.request, status: http.statusCode)
            table[dataTask.taskIdentifier] = exchange
            // An announced length over the limit is refused before any of the body is read.
            guard http.expectedContentLength > Int64(exchange.limit) else { return nil }
            return ResponseLimits.tooLarge(exchange.request, limit: exchange.limit, announced: http.expectedContentLength)
        }
        if let tooLarge {
            finish(dataTask.taskIdentifier, .failure(tooLarge))
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        let tooLarge: AuthFlowError? = exchanges.withLock { table in
            guard let count = table[id]?.body.count, let limit = table[id]?.limit else { return nil }
            // Counted before it is kept: a body past the limit is never buffered.
            guard count + data.count <= limit else { return table[id].map { ResponseLimits.tooLarge($0.request, limit: limit) } }
            table[id]?.body.append(data) // in place: the buffer is not copied
            return nil
        }
        if let tooLarge {
            finish(dataTask.taskIdentifier, .failure(tooLarge))
            URLSessionTransport.calls.async { dataTask.cancel() }
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let pending = exchanges.withLock { $0[id] }
        guard let pending else { return }
        if error == nil, let response = pending.response ?? (task.response as? HTTPURLResponse) {
            finish(id, .success((pending.body, response)))
        } else if let response = challenged.withLock({ $0[id] }) {
            finish(id, .success((Data(), response)))
        } else {
            finish(id, .failure(error ?? AuthFlowError.invalidResponse("not an HTTP response")))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // Kept only while the exchange is in flight; finishing it removes the entry.
        if let response = challenge.failureResponse as? HTTPURLResponse, exchanges.withLock({ $0[task.taskIdentifier] != nil }) {
            challenged.withLock { $0[task.taskIdentifier] = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

#endif

/// Runs `operation`, throwing a `timeout` error if it takes longer than `seconds`.
/// URLSession's own timeout is per-idle-interval; this bounds the whole request.
/// The operation is cancelled when the deadline passes and must end promptly
/// on cancellation (both transports resume their caller at once).
func withDeadline<T: Sendable>(
    seconds: TimeInterval, what: String? = nil,
    _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(seconds, 0.001) * 1_000_000_000))
            let limit = seconds >= 1 ? "\(Int(seconds.rounded(.up))) s" : "\(Int((seconds * 1000).rounded(.up))) ms"
            throw AuthFlowError(
                .timeout, "\(what ?? "the answer") did not arrive within \(limit)",
                recovery: "The server is slow or not answering; try again later, or allow more time with a longer timeout "
                    + "(OAuthClient's timeout, HTTPTransportRequest.timeout).",
                remedy: .allowMoreTime)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
