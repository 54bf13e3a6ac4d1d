import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

@Suite struct ResourceIdentifierTests {
    @Test(arguments: [
        ("HTTPS://API.Example.COM:443/mcp", "https://api.example.com/mcp"),
        ("https://api.example.com/", "https://api.example.com"),
        ("https://api.example.com", "https://api.example.com"),
        ("https://api.example.com/mcp/", "https://api.example.com/mcp/"),
        ("https://api.example.com:8443/v1?tenant=a", "https://api.example.com:8443/v1?tenant=a"),
        ("http://127.0.0.1:80/x", "http://127.0.0.1/x"),
        ("http://localhost:9000/mcp", "http://localhost:9000/mcp"),
    ])
    func canonicalForm(_ given: String, _ canonical: String) throws {
        #expect(try ResourceIdentifier(url(given)).description == canonical)
    }

    @Test(arguments: [
        "https://api.example.com/mcp#frag", "http://api.example.com/mcp", "https://user:pw@api.example.com/mcp", "/relative",
        "mailto:someone@example.com",
    ])
    func refusedResources(_ given: String) {
        expectError(.configuration) { try ResourceIdentifier(url(given)) }
    }

    @Test(arguments: [
        ("https://api.example.com", "https://api.example.com/mcp", true),
        ("https://api.example.com/mcp", "https://api.example.com/mcp", true),
        ("https://api.example.com/mcp", "https://api.example.com/mcp/tools", true),
        ("https://api.example.com/mcp/", "https://api.example.com/mcp/tools", true),
        ("https://api.example.com/mcp", "https://api.example.com/mcpx", false),
        ("https://api.example.com/mcp", "https://api.example.com/", false),
        ("https://api.example.com/mcp", "https://api.example.com:8443/mcp", false),
        ("https://api.example.com", "https://evil.example.com/mcp", false),
        ("https://api.example.com/v1?t=a", "https://api.example.com/v1?t=a/x", false),
        ("https://example.com", "https://api.example.com", false),
        ("https://api.example.com/mcp", "https://api.example.com/mcp/../admin", false),
        ("https://api.example.com/mcp", "https://api.example.com/mcp/%2e%2E/admin", false),
        ("https://api.example.com/mcp", "https://api.example.com/mcp/./tools", false),
        ("https://api.example.com", "https://api.example.com/a/../b", false),
        ("https://api.example.com/mcp", "https://api.example.com/mcp/..tools", true),
    ])
    func covers(_ metadata: String, _ requested: String, _ expected: Bool) throws {
        #expect(try ResourceIdentifier(url(metadata)).covers(ResourceIdentifier(url(requested))) == expected)
    }

    @Test(arguments: [
        ("https://api.example.com/mcp", "https://api.example.com/other/path?q=1", true),
        ("https://api.example.com/mcp", "https://API.example.com:443/mcp", true),
        ("https://api.example.com/mcp", "https://api.example.com:8443/mcp", false),
        ("https://api.example.com/mcp", "http://api.example.com/mcp", false),
        ("https://api.example.com/mcp", "https://api.example.com.evil.test/mcp", false),
        ("http://127.0.0.1:8080/mcp", "http://127.0.0.1:8081/mcp", false),
    ])
    func tokensStayOnTheResourceOrigin(_ resource: String, _ target: String, _ permitted: Bool) throws {
        #expect(try ResourceIdentifier(url(resource)).permitsRequest(to: url(target)) == permitted)
    }
}

@Suite struct ProtectedResourceMetadataTests {
    static func document(resource: String, servers: [String] = ["https://id.example.com"], extra: String = "") -> String {
        let list = servers.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"resource":"\#(resource)","authorization_servers":[\#(list)],"scopes_supported":["mcp:tools"]\#(extra)}"#
    }

    @Test func metadataURLsInsertTheWellKnownSegmentThenTryTheRoot() throws {
        let resource = try ResourceIdentifier(url("https://api.example.com/v1/mcp?x=1"))
        #expect(
            ProtectedResourceMetadata.metadataURLs(for: resource).map(\.absoluteString) == [
                "https://api.example.com/.well-known/oauth-protected-resource/v1/mcp",
                "https://api.example.com/.well-known/oauth-protected-resource",
            ])
        let root = try ResourceIdentifier(url("https://api.example.com:8443/"))
        #expect(
            ProtectedResourceMetadata.metadataURLs(for: root).map(\.absoluteString) == [
                "https://api.example.com:8443/.well-known/oauth-protected-resource"
            ])
    }

    @Test func parsesEveryModelledMember() throws {
        let metadata = try ProtectedResourceMetadata(
            json: json(
                Self.document(
                    resource: "https://API.example.com/mcp",
                    extra: #","bearer_methods_supported":["header"],"dpop_signing_alg_values_supported":["ES256"],"#
                        + #""dpop_bound_access_tokens_required":true,"resource_name":"Tools","x_other":1"#)))
        #expect(metadata.resource.description == "https://api.example.com/mcp")
        #expect(metadata.authorizationServers == ["https://id.example.com"])
        #expect(metadata.scopesSupported == ["mcp:tools"])
        #expect(metadata.bearerMethodsSupported == ["header"])
        #expect(metadata.dpopSigningAlgValuesSupported == ["ES256"])
        #expect(metadata.dpopBoundAccessTokensRequired)
        #expect(metadata.resourceName == "Tools")
        #expect(metadata.document["x_other"] != nil)
        #expect(try metadata.authorizationServer() == "https://id.example.com")
    }

    @Test(arguments: [
        #"{"authorization_servers":["https://id.example.com"]}"#,
        #"{"resource":42}"#,
        #"{"resource":"https://api.example.com","authorization_servers":"https://id.example.com"}"#,
        #"{"resource":"https://api.example.com","authorization_servers":["not a url"]}"#,
        #"{"resource":"https://api.example.com","dpop_bound_access_tokens_required":"yes"}"#,
        #"["https://api.example.com"]"#,
    ])
    func malformedDocumentsAreInvalidResponses(_ text: String) {
        expectError(.invalidResponse) { try ProtectedResourceMetadata(json: json(text)) }
    }

    @Test func anAuthorizationServerOnPlainHTTPIsRefused() {
        let error = expectError(.configuration) {
            try ProtectedResourceMetadata(
                json: json(Self.document(resource: "https://api.example.com", servers: ["http://id.example.com"])))
        }
        #expect(error?.message == "an authorization server of the resource must use https (http is allowed only for loopback hosts)")
    }

    @Test func aResourceThatNamesNoAuthorizationServerCannotBeSignedInTo() throws {
        let metadata = try ProtectedResourceMetadata(json: json(Self.document(resource: "https://api.example.com", servers: [])))
        let error = expectError(.configuration) { try metadata.authorizationServer() }
        #expect(error?.message == "the protected resource https://api.example.com names no authorization server")
    }

    // MARK: discovery against a real server on 127.0.0.1

    @Test func findsTheDocumentWithThePathInserted() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/.well-known/oauth-protected-resource/mcp" else { return .init(status: 404) }
            return .json(Self.document(resource: "http://127.0.0.1:\(port.current)/mcp"))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let metadata = try await ProtectedResourceMetadata.discover(
            resource: server.url("/mcp"), transport: URLSessionTransport(), timeout: 5)
        #expect(metadata.resource.url == server.url("/mcp"))
        #expect(server.requests.map(\.target) == ["/.well-known/oauth-protected-resource/mcp"])
    }

    @Test func fallsBackToTheRootOfTheOrigin() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/.well-known/oauth-protected-resource" else { return .init(status: 404) }
            return .json(Self.document(resource: "http://127.0.0.1:\(port.current)/api/mcp"))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let metadata = try await ProtectedResourceMetadata.discover(
            resource: server.url("/api/mcp"), transport: URLSessionTransport(), timeout: 5)
        #expect(metadata.resource.url == server.url("/api/mcp"))
        #expect(
            server.requests.map(\.target) == ["/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-protected-resource"])
    }

    /// The audience of the tokens is the document's `resource`: `/tenant/mallory` must not get an origin-wide token,
    /// nor one for a parent that a document elsewhere names.
    @Test(arguments: [
        ("/.well-known/oauth-protected-resource", ""), ("/meta/prm.json", ""), ("/meta/prm.json", "/tenant"),
        ("/.well-known/oauth-protected-resource/other", "/tenant"),
    ])
    func aParentIsTheAudienceOnlyFromItsOwnPlace(_ place: String, _ described: String) async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == place else { return .init(status: 404) }
            return .json(Self.document(resource: "http://127.0.0.1:\(port.current)\(described)"))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let error = await expectError(.invalidResponse) {
            try await ProtectedResourceMetadata.discover(
                resource: server.url("/tenant/mallory"), metadataURL: server.url(place), transport: URLSessionTransport(), timeout: 5)
        }
        #expect(
            error?.message
                == "the protected resource metadata at \(server.url(place).absoluteString) describes http://127.0.0.1:\(server.port)\(described), not \(server.url("/tenant/mallory").absoluteString)"
        )
    }

    @Test func aParentPublishedAtItsOwnPlaceIsTheAudience() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/.well-known/oauth-protected-resource/tenant" else { return .init(status: 404) }
            return .json(Self.document(resource: "http://127.0.0.1:\(port.current)/tenant"))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let metadata = try await ProtectedResourceMetadata.discover(
            resource: server.url("/tenant/mallory"), metadataURL: server.url("/.well-known/oauth-protected-resource/tenant"),
            transport: URLSessionTransport(), timeout: 5)
        #expect(metadata.resource.url == server.url("/tenant"))
    }

    @Test func theOriginIsTheAudienceWhenItWasNamed() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/.well-known/oauth-protected-resource" else { return .init(status: 404) }
            return .json(Self.document(resource: "http://127.0.0.1:\(port.current)"))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let metadata = try await ProtectedResourceMetadata.discover(resource: server.url(""), transport: URLSessionTransport(), timeout: 5)
        #expect(metadata.resource.url == server.url(""))
    }

    @Test func theChallengesMetadataURLIsAskedFirst() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/meta/prm.json" else { return .init(status: 500) }
            return .json(Self.document(resource: "http://127.0.0.1:\(port.current)/mcp"))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let metadata = try await ProtectedResourceMetadata.discover(
            resource: server.url("/mcp"), metadataURL: server.url("/meta/prm.json"), transport: URLSessionTransport(), timeout: 5)
        #expect(metadata.authorizationServers == ["https://id.example.com"])
        #expect(server.requests.map(\.target) == ["/meta/prm.json"])
    }

    @Test(arguments: ["/other", "/mcpx", ""])
    func aDocumentForAnotherResourceIsRefused(_ otherPath: String) async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { _ in .json(Self.document(resource: "http://127.0.0.1:\(port.current + 1)\(otherPath)")) }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let error = await expectError(.invalidResponse) {
            try await ProtectedResourceMetadata.discover(resource: server.url("/mcp"), transport: URLSessionTransport(), timeout: 5)
        }
        #expect(error?.message.contains("describes") == true)
        #expect(server.requests.count == 1)
    }

    @Test func aDocumentForAnotherPathOnTheSameOriginIsRefused() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { _ in .json(Self.document(resource: "http://127.0.0.1:\(port.current)/admin")) }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        await expectError(.invalidResponse) {
            try await ProtectedResourceMetadata.discover(resource: server.url("/mcp"), transport: URLSessionTransport(), timeout: 5)
        }
    }

    @Test func noDocumentAnywhereIsAnInvalidResponse() async throws {
        let server = try LocalHTTPServer { _ in .init(status: 404) }
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await ProtectedResourceMetadata.discover(resource: server.url("/mcp"), transport: URLSessionTransport(), timeout: 5)
        }
        #expect(error?.message.contains("no protected resource metadata") == true)
        #expect(server.requests.count == 2)
    }

    @Test func aServerErrorStopsTheSearch() async throws {
        let server = try LocalHTTPServer { _ in .init(status: 503) }
        defer { server.stop() }
        await expectError(.invalidResponse) {
            try await ProtectedResourceMetadata.discover(resource: server.url("/mcp"), transport: URLSessionTransport(), timeout: 5)
        }
        #expect(server.requests.count == 1)
    }

    /// A server whose every answer is a 3 MiB document, and a transport that takes 64 KiB of discovery.
    static func hugeDocuments() throws -> (server: LocalHTTPServer, transport: URLSessionTransport) {
        let server = try LocalHTTPServer { _ in
            .init(status: 200, headers: [("Content-Type", "application/json")], body: Data(repeating: 0x20, count: 3 << 20))
        }
        var limits = ResponseLimits()
        limits.discovery = 64 << 10
        return (server, URLSessionTransport(limits: limits))
    }

    @Test func aHugeDocumentIsRefusedAtTheLimit() async throws {
        let (server, transport) = try Self.hugeDocuments()
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await ProtectedResourceMetadata.discover(resource: server.url("/mcp"), transport: transport, timeout: 5)
        }
        #expect(error?.message.contains("larger than 64 KiB") == true)
    }

    @Test func aSlowServerTimesOut() async throws {
        let server = try LocalHTTPServer { _ in
            Thread.sleep(forTimeInterval: 3)
            return .init(status: 404)
        }
        defer { server.stop() }
        await expectError(.timeout) {
            try await ProtectedResourceMetadata.discover(resource: server.url("/mcp"), transport: URLSessionTransport(), timeout: 0.5)
        }
    }

    @Test func aMetadataURLOnPlainHTTPElsewhereIsRefusedBeforeAnyRequest() async {
        let transport = ScriptedTransport.unused()
        await expectError(.configuration) {
            try await ProtectedResourceMetadata.discover(
                resource: url("https://api.example.com/mcp"), metadataURL: url("http://evil.example.com/prm"), transport: transport)
        }
        await expectError(.configuration) {
            try await ProtectedResourceMetadata.discover(resource: url("http://api.example.com/mcp"), transport: transport)
        }
    }
}

@Suite struct AuthorizationServerDiscoveryTests {
    @Test func theOrderIsRFC8414ThenOpenIDInsertedThenAppended() throws {
        #expect(
            try ProviderMetadata.authorizationServerMetadataURLs(for: Issuer("https://id.example.com/tenant1")).map(\.absoluteString) == [
                "https://id.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://id.example.com/.well-known/openid-configuration/tenant1",
                "https://id.example.com/tenant1/.well-known/openid-configuration",
            ])
        #expect(
            try ProviderMetadata.authorizationServerMetadataURLs(for: Issuer("https://id.example.com/")).map(\.absoluteString) == [
                "https://id.example.com/.well-known/oauth-authorization-server",
                "https://id.example.com/.well-known/openid-configuration",
            ])
    }

    @Test func discoversAnRFC8414DocumentWithThePathInserted() async throws {
        let port = Locked(0)
        let server = try LocalHTTPServer { request in
            guard request.target == "/.well-known/openid-configuration/tenant1" else { return .init(status: 404) }
            let issuer = "http://127.0.0.1:\(port.current)/tenant1"
            return .json(DiscoveryTests.document(issuer: issuer))
        }
        defer { server.stop() }
        port.withLock { $0 = server.port }
        let metadata = try await ProviderMetadata.discover(
            authorizationServer: Issuer(server.url("/tenant1")), transport: URLSessionTransport(), timeout: 5)
        #expect(metadata.issuer?.identifier == server.url("/tenant1").absoluteString)
        #expect(
            server.requests.map(\.target).prefix(2) == [
                "/.well-known/oauth-authorization-server/tenant1", "/.well-known/openid-configuration/tenant1",
            ])
    }

    @Test func aHugeDocumentIsRefusedAtTheLimitWithoutTryingFurther() async throws {
        let (server, transport) = try ProtectedResourceMetadataTests.hugeDocuments()
        defer { server.stop() }
        let error = await expectError(.invalidResponse) {
            try await ProviderMetadata.discover(authorizationServer: Issuer(server.url("/tenant1")), transport: transport, timeout: 5)
        }
        #expect(
            error?.message
                == "the discovery document from http://127.0.0.1:\(server.port)/.well-known/oauth-authorization-server/tenant1 is larger than 64 KiB (Content-Length 3145728)"
        )
        #expect(server.requests.count == 1)
    }

    @Test func aSlowDocumentTimesOut() async throws {
        let server = try LocalHTTPServer { _ in
            Thread.sleep(forTimeInterval: 3)
            return .json(DiscoveryTests.document(issuer: "http://127.0.0.1/tenant1"))
        }
        defer { server.stop() }
        await expectError(.timeout) {
            try await ProviderMetadata.discover(
                authorizationServer: Issuer(server.url("/tenant1")), transport: URLSessionTransport(), timeout: 0.5)
        }
    }

    @Test func anotherIssuerInTheDocumentIsAMismatch() async throws {
        let server = try LocalHTTPServer { _ in .json(DiscoveryTests.document(issuer: "https://evil.example.com")) }
        defer { server.stop() }
        await expectError(.issuerMismatch) {
            try await ProviderMetadata.discover(
                authorizationServer: Issuer(server.url("/tenant1")), transport: URLSessionTransport(), timeout: 5)
        }
    }
}

@Suite struct ResourceChallengeTests {
    @Test func a401NamesTheMetadataAndTheScope() throws {
        let challenge = try #require(
            ResourceChallenge(
                fieldValue: #"Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource", scope="a b""#))
        #expect(challenge.scheme == "bearer")
        #expect(challenge.resourceMetadataURL == url("https://api.example.com/.well-known/oauth-protected-resource"))
        #expect(challenge.scopes == ["a", "b"])
        #expect(challenge.error == nil)
        #expect(!challenge.isInsufficientScope)
    }

    @Test func a403AsksForMoreScope() throws {
        let response = HTTPTransportResponse(
            status: 403,
            headers: [
                ("WWW-Authenticate", #"Basic realm="x", Bearer error="insufficient_scope", scope="files:write", error_description="more""#)
            ])
        let challenge = try #require(ResourceChallenge(response))
        #expect(challenge.isInsufficientScope)
        #expect(challenge.scopes == ["files:write"])
        #expect(challenge.errorDescription == "more")
    }

    @Test func aDPoPChallengeIsReadWhenThereIsNoBearerOne() throws {
        let challenge = try #require(ResourceChallenge(fieldValue: #"DPoP algs="ES256", error="invalid_token""#))
        #expect(challenge.scheme == "dpop")
        #expect(challenge.error == "invalid_token")
    }

    @Test(arguments: [#"Bearer resource_metadata="/relative""#, #"Bearer resource_metadata="not a url""#, #"Bearer scope="""#])
    func unusableParametersAreLeftOut(_ field: String) throws {
        let challenge = try #require(ResourceChallenge(fieldValue: field))
        #expect(challenge.resourceMetadataURL == nil)
        #expect(challenge.scopes == nil)
    }

    @Test func otherSchemesAreNoResourceChallenge() {
        #expect(ResourceChallenge(fieldValue: #"Basic realm="x""#) == nil)
        #expect(ResourceChallenge(fieldValue: "") == nil)
    }
}
