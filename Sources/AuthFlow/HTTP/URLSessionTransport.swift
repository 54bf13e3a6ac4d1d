import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: URLSession with redirects refused.
///
/// Redirects are refused by a session-level delegate, because URLSession on
/// Linux ignores per-task delegates for this and rewrites 307/308 POSTs.
///
/// On Linux, URLSession stalls on a 401 that carries a `WWW-Authenticate:
/// Basic` challenge (swift-corelibs-foundation), whatever the delegate
/// answers. The delegate therefore cancels such challenges and the transport
/// returns the 401 with its headers and an empty body; the token endpoint
/// reads that as `invalid_client` (RFC 6749 §5.2).
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate = NoRedirects()

    /// Creates a transport with an ephemeral session (no cookies, no cache).
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        urlRequest.httpBody = request.body
        let deadline = request.timeout
        let prepared = urlRequest
        do {
            let (data, response) = try await withDeadline(seconds: deadline) { [session, delegate] in
                try await URLSessionTransport.load(prepared, session: session, delegate: delegate)
            }
            var headers: [(name: String, value: String)] = []
            for (name, value) in response.allHeaderFields {
                headers.append((name: "\(name)", value: "\(value)"))
            }
            return HTTPResponse(status: response.statusCode, headers: headers, body: data)
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

    /// Runs one data task; a challenge the delegate cancelled comes back as
    /// its 401 response with an empty body.
    private static func load(_ request: URLRequest, session: URLSession, delegate: NoRedirects) async throws -> (Data, HTTPURLResponse) {
        let box = LockedValue<URLSessionDataTask?>(nil) // the data task, for cancellation and challenge lookup
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    let challenged = box.withLock { $0 }.flatMap { delegate.takeChallengedResponse(for: $0.taskIdentifier) }
                    if let http = response as? HTTPURLResponse, error == nil {
                        continuation.resume(returning: (data ?? Data(), http))
                    } else if let challenged {
                        continuation.resume(returning: (Data(), challenged))
                    } else if let error {
                        continuation.resume(throwing: error)
                    } else {
                        continuation.resume(throwing: AuthFlowError.invalidResponse("not an HTTP response"))
                    }
                }
                box.withLock { $0 = task }
                task.resume()
            }
        } onCancel: {
            box.withLock { $0 }?.cancel()
        }
    }

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
        default:
            return AuthFlowError(.network, "request to \(host) failed (\(error.code.rawValue))")
        }
    }
}

/// Refuses every redirect, so the 3xx response itself is returned; on Linux
/// also cancels authentication challenges, remembering their 401 response.
private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private let challenged = LockedValue<[Int: HTTPURLResponse]>([:])

    func takeChallengedResponse(for task: Int) -> HTTPURLResponse? {
        challenged.withLock { $0.removeValue(forKey: task) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        #if canImport(FoundationNetworking)
        if let response = challenge.failureResponse as? HTTPURLResponse {
            challenged.withLock { $0[task.taskIdentifier] = response }
        }
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}

/// Runs `operation`, throwing a `timeout` error if it takes longer than `seconds`.
/// URLSession's own timeout is per-idle-interval; this bounds the whole request.
func withDeadline<T: Sendable>(seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(seconds, 0.001) * 1_000_000_000))
            throw AuthFlowError(.timeout, "no answer in \(Int(seconds.rounded(.up))) s")
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
