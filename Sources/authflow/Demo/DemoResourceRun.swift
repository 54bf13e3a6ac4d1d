#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
import AuthFlowProvider
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow demo --resource`: signing in to an API by its URL alone, step
/// by step, against an embedded provider that also serves the API. The
/// client has no account anywhere: the API's 401 names its metadata, the
/// metadata names the authorization server, and the client registers
/// itself there (RFC 7591) before the browser sign-in with the RFC 8707
/// `resource`. Nothing is stored.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
struct DemoResourceRun {
    let logger: Logger
    let json: Bool
    /// The bound on each request of the demo (all on loopback).
    static let timeout: TimeInterval = 10
    static let api = ProviderProtectedResource(path: "/api")

    /// What the chain ends with.
    struct Outcome {
        let client: OAuthClient
        let credentials: OAuthCredentials
        let audience: JSONMemberValue?
        let answer: [String: JSONMemberValue]
    }

    func run() async throws {
        var printer = StepPrinter(printsLines: !json)
        if !json {
            Output.stdout("AuthFlow demo: signing in to an API by its URL alone, against an embedded OpenID Provider that serves the API\n")
        }
        var configuration = ProviderConfiguration.demo
        configuration.protectedResources = [Self.api]
        let provider = try await printer.step("start provider + API") {
            try await EmbeddedProvider.start(configuration)
        } detail: {
            "\($0.issuer.identifier); API \($0.identifier(of: Self.api).absoluteString) (requires scope \(Self.api.requiredScopes.joined(separator: " ")))"
        }
        let api = provider.identifier(of: Self.api)
        let outcome = try await printer.stopping(provider) { printer in try await chain(api, printer: &printer) }
        if json {
            Output.json(
                DemoReport(
                    issuer: provider.issuer, resource: outcome.client.resource?.description, clientID: outcome.client.clientID,
                    credentials: outcome.credentials, printer: printer, accessTokenAudience: outcome.audience, apiResponse: outcome.answer))
            return
        }
        Output.stdout("\ntotal \(TextColumns.fixed(printer.total, decimals: 1)) ms")
        Output.stdout("\nthe API answered:")
        for name in outcome.answer.keys.sorted() {
            Output.stdout("  \(TextColumns.left(name, width: 20)) \(Summary.render(outcome.answer[name]!))")
        }
    }

    private func chain(_ api: URL, printer: inout StepPrinter) async throws -> Outcome {
        let transport = URLSessionTransport()
        let timeout = Self.timeout
        let challenge = try await printer.step("API without a token") {
            let response = try await transport.send(
                HTTPTransportRequest(method: "GET", url: api, timeout: timeout, purpose: .discovery))
            guard response.status == 401, let challenge = ResourceChallenge(response), challenge.resourceMetadataURL != nil else {
                throw AuthFlowError(.invalidResponse, "the API answered HTTP \(response.status) without naming its metadata")
            }
            return challenge
        } detail: {
            "GET → 401, WWW-Authenticate: \($0.scheme == "bearer" ? "Bearer" : $0.scheme) resource_metadata=\"\($0.resourceMetadataURL?.absoluteString ?? "")\""
        }
        let resourceMetadata = try await printer.step("resource metadata") {
            try await ProtectedResourceMetadata.discover(
                resource: api, metadataURL: challenge.resourceMetadataURL, transport: transport, timeout: timeout, logger: logger)
        } detail: {
            "RFC 9728: resource \($0.resource) covers the API; authorization server \($0.authorizationServers.map(\.identifier).joined(separator: " "))"
        }
        let server = try resourceMetadata.authorizationServer()
        let metadata = try await printer.step("authorization server") {
            try await ProviderMetadata.discover(authorizationServer: server, transport: transport, timeout: timeout, logger: logger)
        } detail: {
            "issuer = \(server.identifier) exactly; PKCE \($0.codeChallengeMethodsSupported?.joined(separator: " ") ?? "-"); registration endpoint \($0.registrationEndpoint == nil ? "absent" : "present")"
        }
        let redirect = URL(string: "http://127.0.0.1/callback")!
        let registration = try await printer.step("client registration") {
            try await ClientRegistration.register(
                ClientRegistrationRequest(
                    redirectURIs: [redirect], clientName: "authflow demo", softwareID: "authflow", softwareVersion: Authflow.version),
                with: metadata, transport: transport, timeout: timeout, logger: logger)
        } detail: {
            "RFC 7591: client_id \($0.clientID) (native, \($0.tokenEndpointAuthMethod)); redirect \(redirect.absoluteString), any port"
        }
        var client = try OAuthClient(
            metadata: metadata, clientID: registration.clientID, authentication: registration.authentication, transport: transport,
            timeout: timeout, logger: logger)
        client.resource = resourceMetadata.resource
        client.registration = registration
        let scopes = ["openid"] + (challenge.scopes ?? resourceMetadata.scopesSupported ?? []).filter { $0 != "openid" }
        let listener = try await printer.loopbackListener(logger: logger)
        defer { Task { await listener.close() } }
        let request = try await printer.step("authorization request") {
            try client.authorizationRequest(redirectURI: listener.redirectURI, scopes: scopes)
        } detail: { _ in
            "S256 challenge, state, nonce; resource \(resourceMetadata.resource); scope \(scopes.joined(separator: " "))"
        }
        let grant = try await printer.browserSignIn(request, listener: listener)
        let credentials = try await printer.step("code exchange + ID token") {
            try await client.exchange(grant)
        } detail: { credentials in
            let token = try? CompactJWS(credentials.accessToken)
            return
                "ID token verified; access token \(token?.header["typ"]?.stringValue ?? "opaque") with aud \(token?.claims["aud"].map(Summary.render) ?? "-")"
        }
        let audience = (try? CompactJWS(credentials.accessToken))?.claims["aud"]
        let answer = try await printer.step("API with the token") {
            let session = try await AuthSession.start(client: client, credentials: credentials, store: MemoryCredentialStore())
            let response = try await session.send(HTTPTransportRequest(method: "GET", url: api, timeout: timeout))
            guard response.status == 200, case .object(let members)? = try? JSONDecoder().decode(JSONMemberValue.self, from: response.body)
            else {
                throw AuthFlowError(.invalidResponse, "the API refused the token (HTTP \(response.status))")
            }
            return members
        } detail: {
            "GET with Authorization: \(credentials.token.tokenType) → 200; the API saw sub \($0["sub"].map(Summary.render) ?? "-"), client \($0["client_id"].map(Summary.render) ?? "-")"
        }
        return Outcome(client: client, credentials: credentials, audience: audience, answer: answer)
    }
}
#endif
