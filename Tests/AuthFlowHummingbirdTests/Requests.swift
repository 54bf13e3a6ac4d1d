#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation

/// Requests to the test API through AuthFlow's own transport, and the
/// answers the middleware must give.
extension TestAPI {
    /// The claims of a good access token for this API: `read` and `write`.
    func claims(_ changes: [String: JSONMemberValue?] = [:], now: Date = Date()) -> [String: JSONMemberValue] {
        var claims: [String: JSONMemberValue] = [
            "iss": .string(provider.issuer.identifier), "aud": .string(resourceURL.absoluteString), "sub": .string("demo"),
            "client_id": .string("authflow-demo"), "scope": .string("read write"), "email": .string("demo@example.com"),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)), "exp": .number(now.timeIntervalSince1970.rounded(.down) + 300),
            "jti": .string(UUID().uuidString),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    func send(
        _ method: String = "GET", _ url: URL? = nil, authorization: String? = nil, dpop: [String] = [], body: Data? = nil,
        contentType: String? = nil
    ) async throws -> HTTPTransportResponse {
        var headers: [(name: String, value: String)] = []
        if let authorization { headers.append(("Authorization", authorization)) }
        for proof in dpop { headers.append(("DPoP", proof)) }
        if let contentType { headers.append(("Content-Type", contentType)) }
        return try await URLSessionTransport().send(
            HTTPTransportRequest(method: method, url: url ?? items, headers: headers, body: body, timeout: 10))
    }

    var metadataURL: String { base.absoluteString + "/.well-known/oauth-protected-resource/api" }

    /// Every `WWW-Authenticate` value of `response`, joined as one field would be.
    static func challenges(_ response: HTTPTransportResponse) -> String {
        response.headers.filter { $0.name.caseInsensitiveCompare("WWW-Authenticate") == .orderedSame }.map(\.value).joined(separator: ", ")
    }

    /// The challenges of a refusal: the error in the challenge of `scheme`.
    func expected(
        error: String? = nil, description: String? = nil, scope: String? = nil, scheme: String = "Bearer", bearer: Bool = true
    ) -> String {
        func parameters(_ mine: Bool, algs: Bool) -> String {
            var parts: [String] = []
            if mine, let error {
                parts.append("error=\"\(error)\"")
                if let description { parts.append("error_description=\"\(description)\"") }
                if let scope { parts.append("scope=\"\(scope)\"") }
            }
            if algs { parts.append("algs=\"ES256 EdDSA PS256 RS256\"") }
            parts.append("resource_metadata=\"\(metadataURL)\"")
            return parts.joined(separator: ", ")
        }
        var values: [String] = []
        if bearer { values.append("Bearer " + parameters(scheme == "Bearer", algs: false)) }
        values.append("DPoP " + parameters(scheme == "DPoP" || !bearer, algs: true))
        return values.joined(separator: ", ")
    }
}
#endif
