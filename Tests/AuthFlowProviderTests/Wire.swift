#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation

/// Raw HTTP against the provider, for what the engine would never send.
struct Wire {
    let provider: EmbeddedProvider
    let transport = URLSessionTransport()

    func url(_ path: String, _ query: [(String, String)] = []) -> URL {
        URL(string: provider.issuer.identifier + path + (query.isEmpty ? "" : "?" + FormEncoding.encode(query)))!
    }

    func get(_ path: String, _ query: [(String, String)] = [], headers: [(name: String, value: String)] = []) async throws
        -> HTTPTransportResponse
    {
        try await transport.send(HTTPTransportRequest(method: "GET", url: url(path, query), headers: headers))
    }

    /// POSTs a form body as given (so tests can repeat parameters). With
    /// HTTP Basic it goes over a raw socket, since a failure is a 401 with
    /// `WWW-Authenticate: Basic`, which URLSession on Linux never delivers.
    func post(_ path: String, body: String, basic: (String, String)? = nil, rawBasic: String? = nil) async throws -> HTTPTransportResponse {
        var headers: [(String, String)] = [("Content-Type", "application/x-www-form-urlencoded")]
        if let (id, secret) = basic {
            let pair = FormEncoding.escape(id) + ":" + FormEncoding.escape(secret)
            headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        }
        if let rawBasic { headers.append(("Authorization", "Basic " + Data(rawBasic.utf8).base64EncodedString())) }
        if basic != nil || rawBasic != nil {
            return try await RawHTTP.send(port: provider.port, method: "POST", target: path, headers: headers, body: body)
        }
        return try await transport.send(
            HTTPTransportRequest(method: "POST", url: url(path), headers: headers.map { (name: $0.0, value: $0.1) }, body: Data(body.utf8)))
    }

    func post(_ path: String, _ pairs: [(String, String)], basic: (String, String)? = nil) async throws -> HTTPTransportResponse {
        try await post(path, body: FormEncoding.encode(pairs), basic: basic)
    }

    /// RFC 7662 introspection as the confidential demo client.
    func introspect(_ token: String) async throws -> [String: JSONMemberValue] {
        let response = try await post("/introspect", [("token", token)], basic: (Fixture.backend.id, Fixture.backend.secret!))
        return Wire.json(response)
    }

    static func json(_ response: HTTPTransportResponse) -> [String: JSONMemberValue] {
        (try? JSONDecoder().decode(JSONMemberValue.self, from: response.body))?.objectValue ?? [:]
    }

    /// The query parameters of a redirect's Location.
    static func parameters(of location: URL) -> [String: String] {
        let query = URLComponents(url: location, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        return Dictionary(FormEncoding.decode(query) ?? [], uniquingKeysWith: { first, _ in first })
    }
}

/// Signs in through the engine with the headless browser; returns the request and the validated grant.
func authorize(
    _ client: OAuthClient, scopes: [String] = ["openid", "profile", "email", "offline_access"],
    redirect: String = "http://127.0.0.1:9/callback"
) async throws -> (AuthorizationRequest, AuthorizationGrant) {
    let request = try client.authorizationRequest(redirectURI: URL(string: redirect)!, scopes: scopes)
    let location = try await HeadlessBrowser().redirectLocation(of: request.url)
    return (request, try request.validateCallback(location))
}

/// A valid-looking S256 challenge.
let someChallenge = String(repeating: "A", count: 43)
#endif
