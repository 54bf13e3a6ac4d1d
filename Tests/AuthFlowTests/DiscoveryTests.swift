import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct DiscoveryTests {
    static func document(issuer: String, base: String? = nil, extra: String = "") -> String {
        let base = base ?? issuer
        return """
            {"issuer":"\(issuer)","authorization_endpoint":"\(base)/authorize","token_endpoint":"\(base)/token",\
            "jwks_uri":"\(base)/jwks","revocation_endpoint":"\(base)/revoke","response_types_supported":["code"]\(extra)}
            """
    }

    // MARK: discoveryURLs

    @Test(arguments: ["https://ex.com", "https://ex.com/"])
    func discoveryURLsForHostOnlyIssuer(_ issuer: String) throws {
        let urls = try ProviderMetadata.discoveryURLs(for: Issuer(issuer)).map(\.absoluteString)
        #expect(
            urls == [
                "https://ex.com/.well-known/openid-configuration",
                "https://ex.com/.well-known/oauth-authorization-server",
            ])
    }

    @Test func discoveryURLsForIssuerWithPath() throws {
        let urls = try ProviderMetadata.discoveryURLs(for: Issuer("https://ex.com/tenant/a")).map(\.absoluteString)
        #expect(
            urls == [
                "https://ex.com/tenant/a/.well-known/openid-configuration",
                "https://ex.com/.well-known/oauth-authorization-server/tenant/a",
            ])
    }

    @Test func discoveryURLsKeepPort() throws {
        let urls = try ProviderMetadata.discoveryURLs(for: Issuer("http://127.0.0.1:8080/realms/x")).map(\.absoluteString)
        #expect(
            urls == [
                "http://127.0.0.1:8080/realms/x/.well-known/openid-configuration",
                "http://127.0.0.1:8080/.well-known/oauth-authorization-server/realms/x",
            ])
    }

    @Test(arguments: ["https://ex.com?x=1", "https://ex.com/t?x=1", "https://ex.com/#frag", "/relative/path"])
    func issuerWithQueryFragmentOrNoHostIsConfiguration(_ issuer: String) {
        expectError(.configuration) { try ProviderMetadata.discoveryURLs(for: Issuer(issuer)) }
    }

    // MARK: discover

    @Test func successOnFirstURL() async throws {
        let transport = ScriptedTransport(routes: [
            "https://ex.com/.well-known/openid-configuration": .json(Self.document(issuer: "https://ex.com"))
        ])
        let metadata = try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport, timeout: 7)
        #expect(metadata.issuer == "https://ex.com")
        #expect(metadata.tokenEndpoint == url("https://ex.com/token"))
        #expect(metadata.jwksURI == url("https://ex.com/jwks"))
        #expect(metadata.authorizationResponseIssParameterSupported == false)
        #expect(transport.urls == ["https://ex.com/.well-known/openid-configuration"])
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET")
        #expect(request.timeout == 7)
        #expect(request.header("accept") == "application/json")
    }

    @Test func issuerMismatchStopsAfterOneRequest() async {
        let transport = ScriptedTransport { request in
            if request.url.absoluteString == "https://ex.com/.well-known/openid-configuration" {
                return .json(Self.document(issuer: "https://evil.example"))
            }
            return .json(Self.document(issuer: "https://ex.com"))
        }
        await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport)
        }
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: [
        ("https://ex.com", "https://ex.com/"), ("https://ex.com/", "https://ex.com"),
        ("https://ex.com/t", "https://ex.com/t/"), ("https://ex.com", "https://EX.com"),
    ])
    func anyDifferenceInIssuerIsAMismatch(_ asked: String, _ named: String) async {
        let transport = ScriptedTransport { _ in .json(Self.document(issuer: named, base: "https://ex.com")) }
        await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(issuer: Issuer(asked), transport: transport)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func fallsBackToRFC8414After404() async throws {
        let transport = ScriptedTransport(routes: [
            "https://ex.com/.well-known/oauth-authorization-server/tenant/a":
                .json(Self.document(issuer: "https://ex.com/tenant/a", extra: #","authorization_response_iss_parameter_supported":true"#))
        ])
        let metadata = try await ProviderMetadata.discover(issuer: Issuer("https://ex.com/tenant/a"), transport: transport)
        #expect(metadata.issuer == "https://ex.com/tenant/a")
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(
            transport.urls == [
                "https://ex.com/tenant/a/.well-known/openid-configuration",
                "https://ex.com/.well-known/oauth-authorization-server/tenant/a",
            ])
    }

    @Test func nothingFoundIsInvalidResponse() async {
        let transport = ScriptedTransport(routes: [:])
        await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport)
        }
        #expect(transport.requests.count == 2)
    }

    @Test func serverErrorDoesNotFallBack() async {
        let transport = ScriptedTransport { _ in HTTPTransportResponse(status: 500) }
        await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport)
        }
        #expect(transport.requests.count == 1)
    }

    @Test(arguments: ["http://ex.com", "http://127.0.0.1.evil.com", "ftp://ex.com", "http://128.0.0.1"])
    func insecureIssuerIsConfigurationWithoutRequests(_ issuer: String) async {
        let transport = ScriptedTransport.unused()
        await expectError(.configuration) {
            try await ProviderMetadata.discover(issuer: Issuer(issuer), transport: transport)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func httpEndpointInMetadataIsConfiguration() async {
        let document = """
            {"issuer":"https://ex.com","authorization_endpoint":"https://ex.com/authorize","token_endpoint":"http://ex.com/token"}
            """
        let transport = ScriptedTransport { _ in .json(document) }
        await expectError(.configuration) {
            try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport)
        }
    }

    @Test func httpJWKSInMetadataIsConfiguration() async {
        let transport = ScriptedTransport { _ in
            .json(Self.document(issuer: "https://ex.com").replacingOccurrences(of: "https://ex.com/jwks", with: "http://ex.com/jwks"))
        }
        await expectError(.configuration) {
            try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport)
        }
    }

    @Test(arguments: ["http://127.0.0.1:8080", "http://127.5.5.5", "http://[::1]:9000", "http://localhost:3000", "http://LOCALHOST"])
    func loopbackHTTPIsAllowed(_ issuer: String) async throws {
        let transport = ScriptedTransport { _ in .json(Self.document(issuer: issuer)) }
        let metadata = try await ProviderMetadata.discover(issuer: Issuer(issuer), transport: transport)
        #expect(metadata.issuer?.identifier == issuer)
        #expect(transport.urls == ["\(issuer)/.well-known/openid-configuration"])
    }

    @Test(arguments: [
        "not json",
        "[]",
        #"{"issuer":"https://ex.com","authorization_endpoint":"https://ex.com/a"}"#,
        #"{"issuer":"https://ex.com","token_endpoint":"https://ex.com/t"}"#,
        #"{"authorization_endpoint":"https://ex.com/a","token_endpoint":"https://ex.com/t"}"#,
        #"{"issuer":"https://ex.com","authorization_endpoint":"https://ex.com/a","token_endpoint":"/relative"}"#,
        #"{"issuer":"https://ex.com","authorization_endpoint":"https://ex.com/a","token_endpoint":"https://ex.com/t","scopes_supported":"openid"}"#,
        #"{"issuer":"https://ex.com","authorization_endpoint":"https://ex.com/a","token_endpoint":"https://ex.com/t","authorization_response_iss_parameter_supported":"true"}"#,
    ])
    func invalidDocumentIsInvalidResponse(_ document: String) async {
        let transport = ScriptedTransport { _ in .json(document) }
        await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(issuer: Issuer("https://ex.com"), transport: transport)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func documentMembersAreParsed() throws {
        let metadata = try ProviderMetadata(
            json: json(
                Self.document(
                    issuer: "https://ex.com",
                    extra: """
                        ,"code_challenge_methods_supported":["S256"],"id_token_signing_alg_values_supported":["RS256","ES256"],\
                        "authorization_response_iss_parameter_supported":true,"x_custom":{"a":1}
                        """)))
        #expect(metadata.codeChallengeMethodsSupported == ["S256"])
        #expect(metadata.idTokenSigningAlgValuesSupported == ["RS256", "ES256"])
        #expect(metadata.authorizationResponseIssParameterSupported)
        #expect(metadata.document["x_custom"] == .object(["a": .number(1)]))
        #expect(metadata.endpointList.map(\.name) == ["authorization_endpoint", "token_endpoint", "jwks_uri", "revocation_endpoint"])
    }

    @Test func clientInitDiscoversFirst() async throws {
        let transport = ScriptedTransport(routes: [
            "https://ex.com/.well-known/openid-configuration": .json(Self.document(issuer: "https://ex.com"))
        ])
        let client = try await OAuthClient(issuer: Issuer("https://ex.com"), clientID: "app", transport: transport)
        #expect(client.metadata.tokenEndpoint == url("https://ex.com/token"))
        #expect(transport.requests.count == 1)
    }

    @Test func explicitMetadataWithHTTPEndpointIsConfiguration() {
        expectError(.configuration) {
            try OAuthClient(metadata: metadata(token: "http://idp.example/token"), clientID: "app", transport: ScriptedTransport.unused())
        }
        expectError(.configuration) {
            try OAuthClient(
                metadata: metadata(issuer: Issuer("http://idp.example" as String)), clientID: "app", transport: ScriptedTransport.unused())
        }
        expectError(.configuration) {
            try OAuthClient(metadata: metadata(), clientID: "", transport: ScriptedTransport.unused())
        }
    }
}
