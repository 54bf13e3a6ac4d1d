import AuthFlow
import Foundation
import Testing

func json(_ text: String) -> Data { Data(text.utf8) }

func url(_ text: String) -> URL { URL(string: text)! }

/// The issuer `text` names; a test fixture, so an invalid one stops the test.
func issuer(_ text: String) -> Issuer {
    do { return try Issuer(text) } catch { fatalError("test issuer \(text) is not valid: \(error)") }
}

func metadata(issuer text: String? = "https://idp.example", token: String = "https://idp.example/token") -> ProviderMetadata {
    ProviderMetadata(issuer: text.map(issuer), authorizationEndpoint: url("https://idp.example/authorize"), tokenEndpoint: url(token))
}

/// An `HTTPTransport` that answers from a script and records each request.
final class ScriptedTransport: HTTPTransport {
    typealias Handler = @Sendable (HTTPTransportRequest) throws -> HTTPTransportResponse
    private let handler: Handler
    private let log = LockedValue<[HTTPTransportRequest]>([])

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// A transport that must not be used: any request fails the test.
    static func unused() -> ScriptedTransport {
        ScriptedTransport { request in
            Issue.record("unexpected request to \(request.url)")
            return HTTPTransportResponse(status: 599)
        }
    }

    var requests: [HTTPTransportRequest] { log.withLock { $0 } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        log.withLock { $0.append(request) }
        return try handler(request)
    }

    static func json(_ text: String, status: Int = 200) -> HTTPTransportResponse {
        HTTPTransportResponse(status: status, headers: [("Content-Type", "application/json")], body: Data(text.utf8))
    }
}
