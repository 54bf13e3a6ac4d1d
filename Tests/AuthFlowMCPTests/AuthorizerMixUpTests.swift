#if MCP && EmbeddedProvider && Hummingbird
import AuthFlow
import AuthFlowMCP
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The MCP bridge signs in to whichever authorization server an MCP server
/// names: the mix-up (RFC 9700 §4.4) through it. H is the embedded provider
/// without `iss`, with a public client on the plain loopback redirect URI;
/// E names itself for its resource, sends the user to H (directly, or
/// through its own authorization endpoint with the redirect URI rewritten)
/// and answers registration with H's client ID.
@Suite("MCP bridge and the mix-up")
struct AuthorizerMixUpTests {
    static func honest() -> ProviderConfiguration {
        var configuration = ProviderConfiguration.demo
        configuration.sendsIssuerInAuthorizationResponse = false
        configuration.clients.append(ProviderClient(id: "plain-public", redirectURIs: ["http://127.0.0.1/callback"]))
        return configuration
    }

    @Test(
        "the code and the verifier never reach the hostile server's token endpoint",
        arguments: [
            (nil, "expected a redirect, got HTTP 400"),
            (HostileAuthorizationServer.Rewrite.plain, "callback is not for the redirect URI that was sent"),
        ])
    func noCodeReachesTheHostileServer(_ rewrite: HostileAuthorizationServer.Rewrite?, _ message: String) async throws {
        let honest = try await EmbeddedProvider.start(Self.honest())
        let hostile = try await HostileAuthorizationServer.start(honest: honest.issuer.url, clientID: "plain-public", rewrite: rewrite)
        let authorizer = AuthSessionAuthorizer(store: MemoryCredentialStore(), identity: HeadlessSignIn.identity) { client, scopes in
            try await client.signIn(redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: scopes, userAgent: RedirectChaser())
        }
        let challenge = #"Bearer resource_metadata="\#(hostile.base.absoluteString)/.well-known/oauth-protected-resource/api""#
        let error = await #expect(throws: AuthFlowError.self) {
            _ = try await authorizer.handleChallenge(
                statusCode: 401, headers: ["WWW-Authenticate": challenge], endpoint: hostile.base.appending(path: "api"), operationKey: nil,
                session: URLSession.shared)
        }
        #expect(error?.category == .invalidResponse && error?.message == message)
        #expect(await hostile.registrations == 1)
        #expect(await hostile.tokenRequests.isEmpty)
        await hostile.stop()
        await honest.stop()
    }
}

/// A browser that follows redirects until one goes to the redirect URI's
/// port (9, where nothing listens) and hands that over as the callback.
struct RedirectChaser: AuthorizationUserAgent {
    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        var next = request.url
        for _ in 0..<10 {
            let location = try await HeadlessBrowser().redirectLocation(of: next)
            if location.port == 9 { return location }
            next = location
        }
        throw AuthFlowError(.invalidResponse, "too many redirects")
    }
}
#endif
