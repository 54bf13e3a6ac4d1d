import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

// MARK: - Error expectations

/// Runs `body` and checks it throws an `AuthFlowError` of exactly `category`
/// (and, for `id_token_invalid`, exactly `reason`). Returns the error.
@discardableResult
func expectError<T>(
    _ category: AuthFlowError.Category, reason: AuthFlowError.Reason? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> AuthFlowError? {
    do {
        _ = try body()
    } catch {
        return check(error, category, reason, sourceLocation)
    }
    Issue.record(
        "expected \(category.rawValue)\(reason.map { " (\($0.rawValue))" } ?? "") but nothing was thrown", sourceLocation: sourceLocation)
    return nil
}

/// Async variant of ``expectError(_:reason:sourceLocation:_:)``.
@discardableResult
func expectError<T>(
    _ category: AuthFlowError.Category, reason: AuthFlowError.Reason? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> AuthFlowError? {
    do {
        _ = try await body()
    } catch {
        return check(error, category, reason, sourceLocation)
    }
    Issue.record(
        "expected \(category.rawValue)\(reason.map { " (\($0.rawValue))" } ?? "") but nothing was thrown", sourceLocation: sourceLocation)
    return nil
}

private func check(
    _ error: any Error, _ category: AuthFlowError.Category, _ reason: AuthFlowError.Reason?,
    _ sourceLocation: SourceLocation
) -> AuthFlowError? {
    guard let error = error as? AuthFlowError else {
        Issue.record("expected AuthFlowError \(category.rawValue), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
    #expect(error.category == category, "wrong category: \(error)", sourceLocation: sourceLocation)
    if category == .idTokenInvalid || reason != nil {
        #expect(error.reason == reason, "wrong reason: \(error)", sourceLocation: sourceLocation)
    }
    return error
}

// MARK: - Small utilities

/// A value behind a lock, for test doubles shared across tasks and threads.
typealias Locked<Value> = LockedValue<Value>

extension LockedValue {
    /// The value now.
    var current: Value { withLock { $0 } }
}

func url(_ text: String) -> URL { URL(string: text)! }

func json(_ text: String) -> Data { Data(text.utf8) }

/// Decodes a query or form body into a dictionary, failing the test on duplicates.
func formDictionary(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: String] {
    guard let pairs = FormEncoding.decode(text) else {
        Issue.record("not form-encoded: \(text)", sourceLocation: sourceLocation)
        return [:]
    }
    var result: [String: String] = [:]
    for (name, value) in pairs {
        if result.updateValue(value, forKey: name) != nil {
            Issue.record("duplicate parameter \(name)", sourceLocation: sourceLocation)
        }
    }
    return result
}

/// A valid 43-character PKCE verifier, fixed for tests.
let fixedVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"

func metadata(
    issuer: Issuer? = "https://idp.example", authorization: String = "https://idp.example/authorize",
    token: String = "https://idp.example/token"
) -> ProviderMetadata {
    ProviderMetadata(issuer: issuer, authorizationEndpoint: url(authorization), tokenEndpoint: url(token))
}

// MARK: - Scripted transport

/// An `HTTPTransport` that records every request and answers from a script.
final class ScriptedTransport: HTTPTransport {
    typealias Handler = @Sendable (HTTPTransportRequest) throws -> HTTPTransportResponse
    private let handler: Handler
    private let log = Locked<[HTTPTransportRequest]>([])

    init(_ handler: @escaping Handler) { self.handler = handler }

    /// Answers by exact URL; anything else gets 404.
    convenience init(routes: [String: HTTPTransportResponse]) {
        self.init { request in routes[request.url.absoluteString] ?? HTTPTransportResponse(status: 404) }
    }

    /// A transport that must never be used.
    static func unused() -> ScriptedTransport {
        ScriptedTransport { request in
            Issue.record("unexpected request to \(request.url)")
            return HTTPTransportResponse(status: 599)
        }
    }

    var requests: [HTTPTransportRequest] { log.current }
    var urls: [String] { requests.map(\.url.absoluteString) }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        log.withLock { $0.append(request) }
        return try handler(request)
    }
}

extension HTTPTransportResponse {
    static func json(_ text: String, status: Int = 200, headers: [(name: String, value: String)] = []) -> HTTPTransportResponse {
        HTTPTransportResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
    }
}

/// JSON text for a dictionary of JSON values (keys sorted, for stable output).
func jsonText(_ object: [String: JSONMemberValue]) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try! encoder.encode(JSONMemberValue.object(object)), as: UTF8.self)
}
