import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// From a resource URL to a client: resource metadata, the authorization
/// server's metadata and the client's identity, against one real server on
/// 127.0.0.1 playing the resource and its authorization server.
@Suite struct ResourceAccessTests {
    final class World: Sendable {
        let server: LocalHTTPServer
        private let port = Locked(0)
        private let pkce: String

        init(pkce: String = #"["S256"]"#, cimd: Bool = false, iss: Bool = false) throws {
            let port = self.port
            self.pkce = pkce
            server = try LocalHTTPServer { request in
                let base = "http://127.0.0.1:\(port.current)"
                switch request.target {
                case "/.well-known/oauth-protected-resource/mcp":
                    return .json(#"{"resource":"\#(base)/mcp","authorization_servers":["\#(base)/as"]}"#)
                case "/.well-known/oauth-authorization-server/as":
                    return .json(
                        #"{"issuer":"\#(base)/as","authorization_endpoint":"\#(base)/as/authorize","token_endpoint":"\#(base)/as/token","revocation_endpoint":"\#(base)/as/revoke","#
                            + #""registration_endpoint":"\#(base)/as/register","code_challenge_methods_supported":\#(pkce),"#
                            + #""client_id_metadata_document_supported":\#(cimd),"authorization_response_iss_parameter_supported":\#(iss)}"#
                    )
                case "/as/register":
                    return .json(#"{"client_id":"dyn-1"}"#, status: 201)
                default:
                    return .init(status: 404)
                }
            }
            port.withLock { $0 = server.port }
        }

        var issuer: String { "http://127.0.0.1:\(server.port)/as" }
        var targets: [String] { server.requests.map(\.target) }
        deinit { server.stop() }
    }

    static let registration = ClientRegistrationRequest(redirectURIs: [url("http://127.0.0.1/callback")], clientName: "Tool")

    @Test func aResourceURLIsEnoughToRegisterAndGetAClient() async throws {
        let world = try World()
        let access = try await OAuthClient.forResource(
            world.server.url("/mcp"), identity: ClientIdentity(registration: Self.registration), transport: URLSessionTransport(),
            timeout: 5)
        #expect(access.client.clientID == "dyn-1")
        #expect(access.client.resource?.url == world.server.url("/mcp"))
        #expect(access.client.metadata.issuer?.identifier == world.issuer)
        #expect(access.registeredNow)
        #expect(access.registration?.issuer?.identifier == world.issuer)
        #expect(
            world.targets == [
                "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server/as", "/as/register",
            ])
    }

    @Test func aStoredRegistrationIsReusedWithoutRegisteringAgain() async throws {
        let world = try World()
        let stored = ClientRegistration(
            issuer: Issuer(stringLiteral: world.issuer), clientID: "kept-7",
            redirectURIs: [IssuerSpecificRedirect.uri(url("http://127.0.0.1/callback"), issuer: Issuer(stringLiteral: world.issuer))])
        let access = try await OAuthClient.forResource(
            world.server.url("/mcp"), identity: ClientIdentity(registration: Self.registration, storedRegistration: stored),
            transport: URLSessionTransport(), timeout: 5)
        #expect(access.client.clientID == "kept-7")
        #expect(!access.registeredNow)
        #expect(!world.targets.contains("/as/register"))
        #expect(access.client.usesIssuerSpecificRedirect)
        #expect(
            try access.client.authorizationRequest(redirectURI: url("http://127.0.0.1:5000/callback"), scopes: []).redirectURI
                == url("http://127.0.0.1:5000/callback/\(IssuerSpecificRedirect.segment(for: Issuer(stringLiteral: world.issuer)))"))
    }

    @Test func aNewRegistrationRegistersRedirectURIsForItsIssuerOnly() async throws {
        let world = try World()
        let access = try await OAuthClient.forResource(
            world.server.url("/mcp"), identity: ClientIdentity(registration: Self.registration), transport: URLSessionTransport(),
            timeout: 5)
        let segment = IssuerSpecificRedirect.segment(for: Issuer(stringLiteral: world.issuer))
        #expect(
            segment.count == 25 && segment.hasPrefix("as-")
                && segment != IssuerSpecificRedirect.segment(for: Issuer(stringLiteral: world.issuer + "x")))
        #expect(access.registration?.redirectURIs == [url("http://127.0.0.1/callback/\(segment)")])
        let body = String(decoding: world.server.requests.first { $0.target == "/as/register" }?.body ?? Data(), as: UTF8.self)
        #expect(body.contains(#"http:\/\/127.0.0.1\/callback\/\#(segment)"#) || body.contains("http://127.0.0.1/callback/\(segment)"))
    }

    @Test func aStoredRegistrationWhoseRedirectURIsDoNotNameItsIssuerIsNotReused() async throws {
        let world = try World()
        let stored = ClientRegistration(
            issuer: Issuer(stringLiteral: world.issuer), clientID: "kept-7", redirectURIs: [url("http://127.0.0.1/callback")])
        let access = try await OAuthClient.forResource(
            world.server.url("/mcp"), identity: ClientIdentity(registration: Self.registration, storedRegistration: stored),
            transport: URLSessionTransport(), timeout: 5)
        #expect(access.client.clientID == "dyn-1" && access.registeredNow)
    }

    @Test func aRegistrationFromAnotherIssuerIsNotReused() async throws {
        let world = try World()
        let stored = ClientRegistration(issuer: "https://old.example", clientID: "kept-7", redirectURIs: [])
        let access = try await OAuthClient.forResource(
            world.server.url("/mcp"), identity: ClientIdentity(registration: Self.registration, storedRegistration: stored),
            transport: URLSessionTransport(), timeout: 5)
        #expect(access.client.clientID == "dyn-1")
        #expect(access.registeredNow)
    }

    @Test func aServerWithoutS256IsRefusedBeforeRegistering() async throws {
        let world = try World(pkce: #"["plain"]"#)
        await expectError(.configuration) {
            try await OAuthClient.forResource(
                world.server.url("/mcp"), identity: ClientIdentity(registration: Self.registration), transport: URLSessionTransport(),
                timeout: 5)
        }
        #expect(!world.targets.contains("/as/register"))
    }

    @Test func aMetadataDocumentIsTheClientIDWhereTheServerSupportsIt() async throws {
        let world = try World(cimd: true, iss: true)
        let document = url("https://app.example.com/oauth/client.json")
        let access = try await OAuthClient.forResource(
            world.server.url("/mcp"), identity: ClientIdentity(metadataDocument: document, registration: Self.registration),
            transport: URLSessionTransport(), timeout: 5)
        #expect(access.client.clientID == document.absoluteString)
        #expect(access.registration == nil)
        #expect(!world.targets.contains("/as/register"))
    }

    // MARK: the order of choice

    static func metadata(registration: Bool, cimd: Bool, issuer: String = "https://as.example", iss: Bool = true) throws -> ProviderMetadata
    {
        var extra = ""
        if registration { extra += #","registration_endpoint":"https://as.example/register""# }
        if cimd { extra += #","client_id_metadata_document_supported":true"# }
        if iss { extra += #","authorization_response_iss_parameter_supported":true"# }
        return try ProviderMetadata(json: json(DiscoveryTests.document(issuer: issuer, extra: extra)))
    }

    @Test func aPreRegisteredClientIDComesFirstForItsIssuer() throws {
        let identity = ClientIdentity(
            preRegistered: .init(clientID: "hand", issuer: "https://as.example"), metadataDocument: url("https://app.example.com/c.json"),
            registration: Self.registration)
        #expect(
            try identity.choose(for: Self.metadata(registration: true, cimd: true))
                == .preRegistered(.init(clientID: "hand", issuer: "https://as.example")))
        #expect(
            try identity.choose(for: Self.metadata(registration: true, cimd: true, issuer: "https://other.example"))
                == .metadataDocument(url("https://app.example.com/c.json")))
        #expect(
            try identity.choose(for: Self.metadata(registration: true, cimd: false, issuer: "https://other.example"))
                == .register(Self.registration))
    }

    @Test(arguments: ["http://app.example.com/c.json", "https://app.example.com", "https://app.example.com/c.json#x"])
    func aMetadataDocumentMustBeAnHTTPSURLWithAPath(_ document: String) throws {
        let identity = ClientIdentity(metadataDocument: url(document))
        expectError(.configuration) { try identity.choose(for: Self.metadata(registration: false, cimd: true)) }
    }

    @Test func anExpiredStoredRegistrationIsReplaced() throws {
        let stored = ClientRegistration(
            issuer: "https://as.example", clientID: "old", clientSecret: "s", secretExpiresAt: Date(timeIntervalSince1970: 10),
            redirectURIs: [IssuerSpecificRedirect.uri(url("http://127.0.0.1/callback"), issuer: "https://as.example")])
        let identity = ClientIdentity(registration: Self.registration, storedRegistration: stored)
        #expect(
            try identity.choose(for: Self.metadata(registration: true, cimd: false), now: Date(timeIntervalSince1970: 5)) == .stored(stored)
        )
        #expect(
            try identity.choose(for: Self.metadata(registration: true, cimd: false), now: Date(timeIntervalSince1970: 20))
                == .register(Self.registration))
    }

    @Test func noApplicableIdentityIsAConfigurationError() throws {
        let identity = ClientIdentity(metadataDocument: url("https://app.example.com/c.json"), registration: Self.registration)
        let error = expectError(.configuration) { try identity.choose(for: Self.metadata(registration: false, cimd: false)) }
        #expect(error?.message.contains("no client identity") == true)
    }

    /// Identities whose redirect URIs AuthFlow cannot make issuer-specific need `iss` (RFC 9207) against a mix-up.
    @Test func fixedRedirectIdentitiesNeedTheIssParameter() throws {
        let anyServer = ClientIdentity(preRegistered: .init(clientID: "hand"))
        #expect(try anyServer.choose(for: Self.metadata(registration: false, cimd: false)) == .preRegistered(.init(clientID: "hand")))
        var error = expectError(.configuration) { try anyServer.choose(for: Self.metadata(registration: true, cimd: false, iss: false)) }
        #expect(
            error?.message
                == "a client ID given without its issuer needs a server that promises the iss parameter (RFC 9207); https://as.example does not"
        )
        let named = ClientIdentity(preRegistered: .init(clientID: "hand", issuer: "https://as.example"))
        #expect(try named.choose(for: Self.metadata(registration: false, cimd: false, iss: false)) == .preRegistered(named.preRegistered!))
        let document = ClientIdentity(metadataDocument: url("https://app.example.com/c.json"), registration: Self.registration)
        #expect(try document.choose(for: Self.metadata(registration: true, cimd: true, iss: false)) == .register(Self.registration))
        error = expectError(.configuration) {
            try ClientIdentity(metadataDocument: url("https://app.example.com/c.json")).choose(
                for: Self.metadata(registration: false, cimd: true, iss: false))
        }
        #expect(
            error?.message
                == "a client ID metadata document without its issuer needs a server that promises the iss parameter (RFC 9207); https://as.example does not"
        )
    }
}
