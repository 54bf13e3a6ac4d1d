#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation
import Testing

/// Client ID metadata documents, served by a real server on 127.0.0.1
/// (http allowed for loopback by the provider's test setting).
@Suite("Client ID metadata documents")
struct ClientMetadataDocumentTests {
    static func configuration(loopbackHTTP: Bool = true, maximumBytes: Int = 64 << 10) -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.clientIDMetadataDocuments.allowsLoopbackHTTP = loopbackHTTP
        configuration.clientIDMetadataDocuments.timeout = 2
        configuration.clientIDMetadataDocuments.maximumBytes = maximumBytes
        return configuration
    }

    /// The authorization endpoint's answer for `clientID`.
    static func authorizePage(_ provider: EmbeddedProvider, clientID: String) async throws -> HTTPTransportResponse {
        try await Wire(provider: provider).get(
            "/authorize",
            [
                ("response_type", "code"), ("client_id", clientID), ("redirect_uri", "http://127.0.0.1:9/callback"),
                ("code_challenge", someChallenge), ("code_challenge_method", "S256"),
            ])
    }

    static func withServer(
        loopbackHTTP: Bool = true, maximumBytes: Int = 64 << 10, _ body: (EmbeddedProvider, DocumentServer) async throws -> Void
    ) async throws {
        let documents = try await DocumentServer.start()
        do {
            try await Fixture.with(configuration(loopbackHTTP: loopbackHTTP, maximumBytes: maximumBytes)) {
                try await body($0, documents)
            }
            await documents.stop()
        } catch {
            await documents.stop()
            throw error
        }
    }

    @Test("a URL client ID signs in with the document's redirect URIs; the document is fetched once and kept")
    func signIn() async throws {
        try await Self.withServer { provider, documents in
            let id = await documents.url("/client.json")
            let client = try await OAuthClient(issuer: provider.issuer, clientID: id)
            #expect(client.metadata.clientIDMetadataDocumentSupported)
            let (_, grant) = try await authorize(client, redirect: "http://127.0.0.1:41234/callback")
            let credentials = try await client.exchange(grant)
            #expect(credentials.subject == "demo")
            _ = try await client.refresh(credentials)
            #expect(await documents.requests["/client.json"] == 1)
            #expect(await provider.cachedClientIDMetadataDocuments == 1)
            // A redirect URI the document does not list: an error page, no redirect.
            let stray = try await Wire(provider: provider).get(
                "/authorize",
                [
                    ("response_type", "code"), ("client_id", id), ("redirect_uri", "http://evil.example.com/cb"),
                    ("code_challenge", someChallenge), ("code_challenge_method", "S256"),
                ])
            #expect(stray.status == 400 && stray.header("Location") == nil)
        }
    }

    @Test(
        "a hostile document is refused with invalid_client and nothing is kept",
        arguments: [
            ("/huge.json", "cannot be used: it could not be fetched"), ("/slow.json", "cannot be used: it could not be fetched"),
            ("/missing.json", "cannot be used: it could not be fetched"),
            ("/other.json", "its client_id is not the URL"),
        ])
    func hostile(path: String, words: String) async throws {
        try await Self.withServer { provider, documents in
            let id = await documents.url(path)
            let page = try await Self.authorizePage(provider, clientID: id)
            let text = String(decoding: page.body, as: UTF8.self)
            #expect(page.status == 400 && page.header("Location") == nil)
            #expect(text.contains("invalid_client") && text.contains(words), "\(text)")
            // At the token endpoint too.
            let token = try await Wire(provider: provider).post(
                "/token", [("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", "http://127.0.0.1/cb"), ("client_id", id)])
            #expect(token.status == 400 && Wire.json(token)["error"] == .string("invalid_client"))
            #expect(Wire.json(token)["error_description"]?.stringValue?.contains(words) == true)
            #expect(await provider.cachedClientIDMetadataDocuments == 0)
        }
    }

    @Test("the configured size limit applies: a document over it is refused with invalid_client and not kept")
    func configuredSizeLimit() async throws {
        try await Self.withServer(maximumBytes: 100) { provider, documents in
            let id = await documents.url("/client.json")
            let page = try await Self.authorizePage(provider, clientID: id)
            let text = String(decoding: page.body, as: UTF8.self)
            #expect(page.status == 400 && text.contains("invalid_client") && text.contains("it could not be fetched"), "\(text)")
            #expect(await provider.cachedClientIDMetadataDocuments == 0)
        }
    }

    @Test("http is refused unless loopback and allowed; URLs with dot segments or fragments are refused before any fetch")
    func urlRules() async throws {
        try await Self.withServer(loopbackHTTP: false) { provider, documents in
            let loopback = try await Self.authorizePage(provider, clientID: await documents.url("/client.json"))
            #expect(String(decoding: loopback.body, as: UTF8.self).contains("must be an https URL"))
            let remote = try await Self.authorizePage(provider, clientID: "http://example.com/client.json")
            #expect(String(decoding: remote.body, as: UTF8.self).contains("must be an https URL"))
            #expect(await documents.requests.isEmpty)
        }
        try await Self.withServer { provider, documents in
            let port = await documents.port
            let dots = try await Self.authorizePage(provider, clientID: "http://127.0.0.1:\(port)/a/../client.json")
            #expect(String(decoding: dots.body, as: UTF8.self).contains("without dot segments"))
            #expect(await documents.requests.isEmpty)
        }
    }

    @Test("a closed port, a 404, a slow and a huge document get one description: the provider is no port scanner")
    func oneErrorForEveryFetchFailure() async throws {
        try await Self.withServer { provider, documents in
            let closed = 9 // discard: nothing listens there
            var descriptions: [String] = []
            for id in [
                "http://127.0.0.1:\(closed)/client.json", await documents.url("/missing.json"), await documents.url("/slow.json"),
                await documents.url("/huge.json"),
            ] {
                let token = try await Wire(provider: provider).post(
                    "/token",
                    [("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", "http://127.0.0.1/cb"), ("client_id", id)])
                descriptions.append(Wire.json(token)["error_description"]?.stringValue?.replacingOccurrences(of: id, with: "ID") ?? "")
            }
            #expect(
                descriptions == Array(repeating: "the client ID metadata document ID cannot be used: it could not be fetched", count: 4))
        }
    }

    @Test("https documents on loopback or private addresses are refused before any request, unless allowed")
    func privateAddresses() async throws {
        try await Self.withServer(loopbackHTTP: false) { provider, documents in
            for id in [
                "https://127.0.0.1:\(await documents.port)/client.json", "https://localhost:\(await documents.port)/client.json",
                "https://[::1]/client.json", "https://10.1.2.3/client.json", "https://169.254.169.254/client.json",
            ] {
                let page = try await Self.authorizePage(provider, clientID: id)
                #expect(String(decoding: page.body, as: UTF8.self).contains("it could not be fetched"), "\(id)")
            }
            #expect(await documents.requests.isEmpty)
        }
        #expect(
            PublicAddress.isPublic([8, 8, 8, 8]) && PublicAddress.isPublic([0x26, 0x06, 0x47, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x11, 0x11]))
        for address: [UInt8] in [
            [127, 0, 0, 1], [10, 0, 0, 1], [172, 16, 0, 1], [192, 168, 1, 1], [169, 254, 169, 254], [100, 64, 0, 1], [0, 0, 0, 0],
            [224, 0, 0, 1], Array(repeating: 0, count: 15) + [1], [0xFD] + Array(repeating: 0, count: 15),
            [0xFE, 0x80] + Array(repeating: 0, count: 14),
            Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 1],
        ] {
            #expect(!PublicAddress.isPublic(address), "\(address)")
        }
    }
}
#endif
