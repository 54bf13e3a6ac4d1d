import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// RFC 7591 dynamic client registration against a real server on 127.0.0.1.
@Suite struct ClientRegistrationTests {
    static let loopback = url("http://127.0.0.1/callback")

    static func providerMetadata(_ server: LocalHTTPServer) -> ProviderMetadata {
        var metadata = ProviderMetadata(
            issuer: "http://127.0.0.1:\(server.port)", authorizationEndpoint: server.url("/authorize"), tokenEndpoint: server.url("/token"))
        metadata.registrationEndpoint = server.url("/register")
        return metadata
    }

    static func register(
        _ answer: LocalHTTPServer.Response, request: ClientRegistrationRequest = .init(redirectURIs: [loopback], clientName: "Tool"),
        initialAccessToken: String? = nil, transport: URLSessionTransport = URLSessionTransport()
    ) async throws -> (ClientRegistration, LocalHTTPServer.Request?) {
        let server = try LocalHTTPServer { _ in answer }
        defer { server.stop() }
        let registration = try await ClientRegistration.register(
            request, with: providerMetadata(server), initialAccessToken: initialAccessToken, transport: transport, timeout: 5)
        return (registration, server.requests.first)
    }

    @Test func aNativeClientRegistersWithoutASecret() async throws {
        let (registration, sent) = try await Self.register(
            .json(#"{"client_id":"c-1","client_id_issued_at":1700000000,"redirect_uris":["http://127.0.0.1/callback"]}"#, status: 201))
        #expect(registration.clientID == "c-1")
        #expect(registration.clientSecret == nil)
        #expect(registration.issuedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(registration.tokenEndpointAuthMethod == "none")
        #expect(registration.authentication == .none)
        #expect(registration.issuer?.identifier.hasPrefix("http://127.0.0.1:") == true)
        let request = try #require(sent)
        #expect(request.method == "POST")
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("Authorization") == nil)
        let body = try #require(JSONMemberValue.object(from: request.body))
        #expect(body["application_type"] == .string("native"))
        #expect(body["token_endpoint_auth_method"] == .string("none"))
        #expect(body["redirect_uris"] == .array([.string("http://127.0.0.1/callback")]))
        #expect(body["grant_types"] == .array([.string("authorization_code"), .string("refresh_token")]))
        #expect(body["response_types"] == .array([.string("code")]))
        #expect(body["client_name"] == .string("Tool"))
    }

    @Test func aConfidentialRegistrationKeepsItsSecretOutOfItsDescription() async throws {
        let (registration, _) = try await Self.register(
            .json(
                #"{"client_id":"c-2","client_secret":"s3cret-value","client_secret_expires_at":0,"token_endpoint_auth_method":"client_secret_post"}"#,
                status: 201),
            request: .init(
                redirectURIs: [url("https://app.example.com/cb")], applicationType: .web, tokenEndpointAuthMethod: "client_secret_post"))
        #expect(registration.authentication == .clientSecretPost(secret: "s3cret-value"))
        #expect(registration.secretExpiresAt == nil)
        #expect(!registration.isExpired())
        #expect(!registration.description.contains("s3cret"))
        #expect(!String(reflecting: registration).contains("s3cret"))
    }

    @Test func anExpiringSecretExpires() {
        let registration = ClientRegistration(
            issuer: nil, clientID: "c", clientSecret: "s", secretExpiresAt: Date(timeIntervalSince1970: 100), redirectURIs: [])
        #expect(registration.isExpired(at: Date(timeIntervalSince1970: 100)))
        #expect(!registration.isExpired(at: Date(timeIntervalSince1970: 99)))
    }

    @Test func theInitialAccessTokenIsSentAndNeverEchoed() async throws {
        let server = try LocalHTTPServer { _ in
            .json(#"{"error":"invalid_token","error_description":"iat-SECRET-123 is not valid"}"#, status: 401)
        }
        defer { server.stop() }
        let error = await expectError(.oauthError) {
            try await ClientRegistration.register(
                .init(redirectURIs: [Self.loopback]), with: Self.providerMetadata(server), initialAccessToken: "iat-SECRET-123",
                transport: URLSessionTransport(), timeout: 5)
        }
        #expect(server.requests.first?.header("Authorization") == "Bearer iat-SECRET-123")
        #expect(error?.oauth?.error == "invalid_token")
        let described = error.map { "\($0) \($0.oauth?.errorDescription ?? "")" } ?? ""
        #expect(described.contains("<redacted>"))
        #expect(described.contains("iat-SECRET-123") == false)
    }

    @Test func theServersRefusalIsAnOAuthError() async throws {
        let error = await expectError(.oauthError) {
            try await Self.register(.json(#"{"error":"invalid_redirect_uri","error_description":"no"}"#, status: 400))
        }
        #expect(error?.oauth?.error == "invalid_redirect_uri")
    }

    @Test(arguments: [
        #"{"client_secret":"x"}"#,
        #"{"client_id":""}"#,
        #"{"client_id":7}"#,
        #"{"client_id":"c","client_id_issued_at":"yesterday"}"#,
        #"{"client_id":"c","client_secret_expires_at":-5}"#,
        #"{"client_id":"c","redirect_uris":["http://127.0.0.1/other"]}"#,
        #"not json"#,
    ])
    func anAnswerThatIsNotARegistrationIsRefused(_ body: String) async {
        await expectError(.invalidResponse) { try await Self.register(.json(body, status: 201)) }
    }

    @Test func anAnswerWithoutAClientIDIsRefused() async {
        let error = await expectError(.invalidResponse) {
            try await Self.register(.json(#"{"client_name":"Tool","redirect_uris":["http://127.0.0.1/callback"]}"#, status: 201))
        }
        #expect(error?.message == "client registration response: client_id is missing")
    }

    @Test func aHugeAnswerIsRefusedAtTheLimit() async {
        let body = #"{"client_id":"c","client_name":""# + String(repeating: "a", count: 200_000) + #""}"#
        let error = await expectError(.invalidResponse) { try await Self.register(.json(body, status: 201)) }
        #expect(error?.message.contains("larger than 64 KiB") == true)
    }

    @Test func withoutARegistrationEndpointNothingIsSent() async {
        let transport = ScriptedTransport.unused()
        await expectError(.configuration) {
            try await ClientRegistration.register(
                .init(redirectURIs: [Self.loopback]), with: metadata(), transport: transport)
        }
    }

    @Test func aPlainHTTPEndpointOrABadNativeRedirectIsRefusedBeforeSending() async {
        let transport = ScriptedTransport.unused()
        var plain = metadata()
        plain.registrationEndpoint = url("http://idp.example/register")
        await expectError(.configuration) {
            try await ClientRegistration.register(.init(redirectURIs: [Self.loopback]), with: plain, transport: transport)
        }
        var secure = metadata()
        secure.registrationEndpoint = url("https://idp.example/register")
        for redirect in ["http://app.example.com/cb", "myapp:/cb"] {
            await expectError(.configuration) {
                try await ClientRegistration.register(.init(redirectURIs: [url(redirect)]), with: secure, transport: transport)
            }
        }
        await expectError(.configuration) {
            try await ClientRegistration.register(.init(redirectURIs: []), with: secure, transport: transport)
        }
    }

    @Test func discoveryReadsTheRegistrationEndpointAndTheMetadataDocumentFlag() throws {
        let metadata = try ProviderMetadata(
            json: json(
                DiscoveryTests.document(
                    issuer: "https://idp.example",
                    extra: #","registration_endpoint":"https://idp.example/register","client_id_metadata_document_supported":true"#)))
        #expect(metadata.registrationEndpoint == url("https://idp.example/register"))
        #expect(metadata.clientIDMetadataDocumentSupported)
        let plain = try ProviderMetadata(json: json(DiscoveryTests.document(issuer: "https://idp.example")))
        #expect(plain.registrationEndpoint == nil)
        #expect(!plain.clientIDMetadataDocumentSupported)
    }

    @Test func aRegistrationSurvivesBeingStored() throws {
        let registration = ClientRegistration(
            issuer: "https://idp.example", clientID: "c", issuedAt: Date(timeIntervalSince1970: 1_700_000_000),
            redirectURIs: [Self.loopback])
        let data = try JSONEncoder().encode(registration)
        #expect(try JSONDecoder().decode(ClientRegistration.self, from: data) == registration)
    }
}
