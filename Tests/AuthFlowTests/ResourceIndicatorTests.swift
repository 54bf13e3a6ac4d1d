import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// RFC 8707: the client's resource goes in the authorization request and in
/// every token request, checked on the wire.
@Suite struct ResourceIndicatorTests {
    static let tokenBody = #"{"access_token":"AT","token_type":"Bearer","expires_in":60,"refresh_token":"RT2"}"#

    static func client(_ server: LocalHTTPServer, resource: String?) throws -> OAuthClient {
        var client = try OAuthClient(
            metadata: ProviderMetadata(
                issuer: nil, authorizationEndpoint: url("https://idp.example/authorize?tenant=a"), tokenEndpoint: server.url("/token")),
            clientID: "app", transport: URLSessionTransport(), timeout: 5)
        client.resource = try resource.map { try ResourceIdentifier(url($0)) }
        return client
    }

    @Test func theAuthorizationRequestNamesTheResource() throws {
        let server = try LocalHTTPServer { _ in .json(Self.tokenBody) }
        defer { server.stop() }
        let client = try Self.client(server, resource: "HTTPS://API.example.com/mcp")
        let request = try client.authorizationRequest(redirectURI: url("http://127.0.0.1/callback"), scopes: ["read"])
        let query = formDictionary(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "")
        #expect(query["resource"] == "https://api.example.com/mcp")
        #expect(query["tenant"] == "a")
    }

    @Test func aResourceGivenInTheOptionsIsNotDoubled() throws {
        let server = try LocalHTTPServer { _ in .json(Self.tokenBody) }
        defer { server.stop() }
        let client = try Self.client(server, resource: "https://api.example.com/mcp")
        let request = try client.authorizationRequest(
            redirectURI: url("http://127.0.0.1/callback"), scopes: ["read"],
            options: AuthorizationOptions(additionalParameters: [.init("resource", "https://api.example.com/other")]))
        let pairs = FormEncoding.decode(URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") ?? []
        #expect(pairs.filter { $0.0 == "resource" }.map(\.1) == ["https://api.example.com/other"])
    }

    @Test func theCodeExchangeAndTheRefreshNameTheResource() async throws {
        let server = try LocalHTTPServer { _ in .json(Self.tokenBody) }
        defer { server.stop() }
        let client = try Self.client(server, resource: "https://api.example.com/mcp")
        let credentials = try await client.exchange(TokenEndpointTests.grant())
        _ = try await client.refresh(credentials)
        _ = try await client.clientCredentials(scopes: ["read"])
        let forms = server.requests.map { formDictionary($0.bodyText) }
        #expect(forms.map { $0["grant_type"] } == ["authorization_code", "refresh_token", "client_credentials"])
        #expect(forms.allSatisfy { $0["resource"] == "https://api.example.com/mcp" })
    }

    @Test func withoutAResourceNoneIsSent() async throws {
        let server = try LocalHTTPServer { _ in .json(Self.tokenBody) }
        defer { server.stop() }
        let client = try Self.client(server, resource: nil)
        let credentials = try await client.exchange(TokenEndpointTests.grant())
        _ = try await client.refresh(credentials)
        let request = try client.authorizationRequest(redirectURI: url("http://127.0.0.1/callback"), scopes: ["read"])
        #expect(server.requests.allSatisfy { formDictionary($0.bodyText)["resource"] == nil })
        #expect(!request.url.absoluteString.contains("resource="))
    }
}
