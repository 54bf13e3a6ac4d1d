import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// ``OAuthClient/signIn(toResource:challenge:identity:transport:timeout:leeway:logger:_:)``:
/// a stored registration the server forgot is replaced once, through a real
/// pushed authorization request on 127.0.0.1 that answers `invalid_client`;
/// and the registration and resource survive the session's store.
@Suite struct ResourceSignInTests {
    /// A resource and its authorization server that knows only `known`
    /// (dynamic registrations answer `dyn-N`, N counting from 1).
    final class World: Sendable {
        let server: LocalHTTPServer
        private let port = Locked(0)

        init(known: Set<String> = ["dyn-1"], registrations: Locked<Int> = Locked(0)) throws {
            let port = self.port
            server = try LocalHTTPServer { request in
                let base = "http://127.0.0.1:\(port.current)"
                switch request.target {
                case "/.well-known/oauth-protected-resource/api":
                    return .json(#"{"resource":"\#(base)/api","authorization_servers":["\#(base)/as"]}"#)
                case "/.well-known/oauth-authorization-server/as":
                    return .json(
                        #"{"issuer":"\#(base)/as","authorization_endpoint":"\#(base)/as/authorize","token_endpoint":"\#(base)/as/token","#
                            + #""registration_endpoint":"\#(base)/as/register","pushed_authorization_request_endpoint":"\#(base)/as/par","#
                            + #""code_challenge_methods_supported":["S256"]}"#)
                case "/as/register":
                    let count = registrations.withLock { count in
                        count += 1
                        return count
                    }
                    return .json(#"{"client_id":"dyn-\#(count)"}"#, status: 201)
                case "/as/par":
                    let client = formDictionary(request.bodyText)["client_id"] ?? ""
                    guard known.contains(client) else { return .json(#"{"error":"invalid_client"}"#, status: 401) }
                    return .json(#"{"request_uri":"urn:ietf:params:oauth:request_uri:x","expires_in":60}"#, status: 201)
                default:
                    return .init(status: 404)
                }
            }
            port.withLock { $0 = server.port }
        }

        var issuer: String { "http://127.0.0.1:\(server.port)/as" }
        deinit { server.stop() }
    }

    static let registration = ClientRegistrationRequest(redirectURIs: [url("http://127.0.0.1/callback")], clientName: "Tool")

    /// What a sign-in does first with a stored registration: push the request.
    static func push(_ access: OAuthClient.ResourceAccess) async throws -> String {
        #expect(access.client.pushesAuthorizationRequests == (access.registration != nil && !access.registeredNow))
        let request = try await access.client.pushedAuthorizationRequest(
            redirectURI: url("http://127.0.0.1:5000/callback"), scopes: ["read"])
        #expect(request.url.absoluteString.contains("request_uri="))
        return access.client.clientID
    }

    @Test func aForgottenStoredRegistrationIsReplacedOnce() async throws {
        let registrations = Locked(0)
        let world = try World(registrations: registrations)
        let stored = ClientRegistration(
            issuer: Issuer(stringLiteral: world.issuer), clientID: "forgotten",
            redirectURIs: [IssuerSpecificRedirect.uri(url("http://127.0.0.1/callback"), issuer: Issuer(stringLiteral: world.issuer))])
        let tries = Locked(0)
        let signedIn = try await OAuthClient.signIn(
            toResource: world.server.url("/api"), identity: ClientIdentity(registration: Self.registration, storedRegistration: stored),
            transport: URLSessionTransport(), timeout: 5
        ) { access in
            tries.withLock { $0 += 1 }
            return try await Self.push(access)
        }
        #expect(signedIn.result == "dyn-1")
        #expect(signedIn.registeredAgain)
        #expect(signedIn.access.registration?.clientID == "dyn-1")
        #expect(signedIn.access.client.registration?.clientID == "dyn-1")
        #expect(tries.current == 2)
        #expect(registrations.current == 1)
    }

    @Test func aNewRegistrationThatIsRefusedIsNotRegisteredAgain() async throws {
        let registrations = Locked(0)
        let world = try World(known: [], registrations: registrations)
        let tries = Locked(0)
        let error = await expectError(.oauthError) {
            try await OAuthClient.signIn(
                toResource: world.server.url("/api"), identity: ClientIdentity(registration: Self.registration),
                transport: URLSessionTransport(), timeout: 5
            ) { access in
                tries.withLock { $0 += 1 }
                // A new registration is not pushed by default: push by hand to meet invalid_client.
                _ = try await access.client.pushedAuthorizationRequest(redirectURI: url("http://127.0.0.1:5000/callback"), scopes: [])
                return access.client.clientID
            }
        }
        #expect(error?.oauth?.error == "invalid_client")
        #expect(tries.current == 1)
        #expect(registrations.current == 1)
    }

    @Test func aForgottenRegistrationReplacedByOneAlsoRefusedStopsAfterOneRenewal() async throws {
        let registrations = Locked(0)
        let world = try World(known: [], registrations: registrations)
        let stored = ClientRegistration(
            issuer: Issuer(stringLiteral: world.issuer), clientID: "forgotten",
            redirectURIs: [IssuerSpecificRedirect.uri(url("http://127.0.0.1/callback"), issuer: Issuer(stringLiteral: world.issuer))])
        let tries = Locked(0)
        await expectError(.oauthError) {
            try await OAuthClient.signIn(
                toResource: world.server.url("/api"), identity: ClientIdentity(registration: Self.registration, storedRegistration: stored),
                transport: URLSessionTransport(), timeout: 5
            ) { access in
                tries.withLock { $0 += 1 }
                _ = try await access.client.pushedAuthorizationRequest(redirectURI: url("http://127.0.0.1:5000/callback"), scopes: [])
                return access.client.clientID
            }
        }
        #expect(tries.current == 2)
        #expect(registrations.current == 1)
    }

    @Test func aStoredRegistrationTheServerKnowsIsReusedWithoutRegistering() async throws {
        let registrations = Locked(0)
        let world = try World(known: ["kept"], registrations: registrations)
        let stored = ClientRegistration(
            issuer: Issuer(stringLiteral: world.issuer), clientID: "kept",
            redirectURIs: [IssuerSpecificRedirect.uri(url("http://127.0.0.1/callback"), issuer: Issuer(stringLiteral: world.issuer))])
        let signedIn = try await OAuthClient.signIn(
            toResource: world.server.url("/api"), identity: ClientIdentity(registration: Self.registration, storedRegistration: stored),
            transport: URLSessionTransport(), timeout: 5
        ) { try await Self.push($0) }
        #expect(signedIn.result == "kept")
        #expect(!signedIn.registeredAgain)
        #expect(registrations.current == 0)
    }

    // MARK: the registration and the resource in the session's store

    static func record(registration: ClientRegistration?) throws -> SessionRecord {
        let body = #"{"access_token":"AT","token_type":"Bearer","expires_in":60,"refresh_token":"RT"}"#
        var client = try OAuthClient(
            metadata: ProviderMetadata(
                issuer: "https://as.example", authorizationEndpoint: url("https://as.example/authorize"),
                tokenEndpoint: url("https://as.example/token")),
            clientID: registration?.clientID ?? "app", authentication: registration?.authentication ?? .none)
        client.resource = try ResourceIdentifier(url("https://api.example.com/mcp"))
        client.registration = registration
        let credentials = OAuthCredentials(
            issuer: "https://as.example", clientID: client.clientID, token: try TokenResponse(json: json(body), requestedScopes: ["read"]),
            idToken: nil)
        return SessionRecord(credentials: credentials, client: client)
    }

    @Test func theFileStoreKeepsTheRegistrationAndTheResource() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let registration = ClientRegistration(
            issuer: "https://as.example", clientID: "dyn-9", clientSecret: "s3cret", issuedAt: Date(timeIntervalSince1970: 1_700_000_000),
            redirectURIs: [url("http://127.0.0.1/callback")], tokenEndpointAuthMethod: "client_secret_basic")
        let record = try Self.record(registration: registration)
        let store = FileCredentialStore(url: directory.appendingPathComponent("session.json"))
        try await store.save(record)
        let loaded = try #require(try await store.load())
        #expect(loaded.registration == registration)
        #expect(loaded.resource?.description == "https://api.example.com/mcp")
        #expect(!loaded.description.contains("s3cret"))
        let restored = try #require(
            try await AuthSession.restore(from: store, authentication: registration.authentication, transport: URLSessionTransport()))
        #expect(restored.client.registration == registration)
        #expect(restored.client.resource?.description == "https://api.example.com/mcp")
    }

    @Test func aFileWrittenBeforeRegistrationsAreKeptStillReads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("session.json")
        let store = FileCredentialStore(url: file)
        try await store.save(try Self.record(registration: nil))
        // The same version-2 file without the new members, as an earlier release wrote it.
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var inner = try #require(object["record"] as? [String: Any])
        inner["resource"] = nil
        inner["registration"] = nil
        object["record"] = inner
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        #expect(chmod(file.path, 0o600) == 0)
        let loaded = try #require(try await store.load())
        #expect(loaded.registration == nil)
        #expect(loaded.resource == nil)
        #expect(loaded.credentials.accessToken == "AT")
    }
}
