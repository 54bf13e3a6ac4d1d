#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowLoopback
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Testing

/// The authorization-server mix-up through a resource (RFC 9700 §4.4): an
/// honest provider H that sends no `iss` (the embedded provider so
/// configured) and a hostile server E on another loopback port, whose
/// resource names E, whose metadata sends the user to H (directly, or
/// through E's own authorization endpoint with the redirect URI rewritten)
/// and whose registration answers with a client ID of H's. The code and the
/// verifier must never reach E's token endpoint.
@Suite struct MixUpTests {
    /// H: the embedded provider without `iss`, with a public client
    /// registered with the plain loopback redirect URI.
    static func honestConfiguration() -> ProviderConfiguration {
        var configuration = Fixture.configuration()
        configuration.sendsIssuerInAuthorizationResponse = false
        configuration.protectedResources = [ProviderProtectedResource(path: "/api")]
        configuration.clients.append(ProviderClient(id: "plain-public", redirectURIs: ["http://127.0.0.1/callback"]))
        return configuration
    }

    static let identity = ClientIdentity(
        registration: ClientRegistrationRequest(redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "Tool"))

    /// Signs in to `resource` by its URL, through a real loopback listener
    /// and a browser that follows every redirect.
    static func signIn(toResource resource: URL) async throws -> OAuthCredentials {
        let listener = try await LoopbackListener.start()
        defer { Task { await listener.close() } }
        return try await OAuthClient.signIn(toResource: resource, identity: identity, timeout: 5) { access in
            try await access.client.signIn(
                redirectURI: listener.redirectURI, scopes: ["openid"], userAgent: FollowingBrowser(listener: listener))
        }.result
    }

    @Test("an honest server without iss still signs in by a resource: the redirect URI names its issuer")
    func honestServerWithoutIss() async throws {
        try await Fixture.with(Self.honestConfiguration()) { honest in
            let discovered = try await ProviderMetadata.discover(issuer: honest.issuer)
            #expect(!discovered.authorizationResponseIssParameterSupported)
            let listener = try await LoopbackListener.start()
            defer { Task { await listener.close() } }
            let signedIn = try await OAuthClient.signIn(
                toResource: honest.identifier(of: ProviderProtectedResource(path: "/api")), identity: Self.identity, timeout: 5
            ) { access in
                #expect(access.client.usesIssuerSpecificRedirect)
                let segment = IssuerSpecificRedirect.segment(for: honest.issuer)
                #expect(access.registration?.redirectURIs == [URL(string: "http://127.0.0.1/callback/\(segment)")!])
                return try await access.client.signIn(
                    redirectURI: listener.redirectURI, scopes: ["openid"], userAgent: FollowingBrowser(listener: listener))
            }
            #expect(signedIn.result.idToken?.subject == "demo")
        }
    }

    @Test("E's metadata sends the user to H with H's client ID: H refuses E's redirect URI, nothing reaches E's token endpoint")
    func hostileMetadataNamesTheHonestAuthorizationEndpoint() async throws {
        try await Fixture.with(Self.honestConfiguration()) { honest in
            let hostile = try await HostileAuthorizationServer.start(honest: honest.issuer.url, clientID: "plain-public", rewrite: nil)
            let error = await #expect(throws: AuthFlowError.self) { try await Self.signIn(toResource: hostile.base.appending(path: "api")) }
            #expect(error?.category == .cancelled && error?.message == "the loopback listener was closed")
            #expect(await hostile.tokenRequests.isEmpty)
            #expect(await hostile.registrations == 1)
            await hostile.stop()
        }
    }

    @Test(
        "E's own authorization endpoint redirects to H with the redirect URI rewritten: the callback is refused, nothing reaches E",
        arguments: [HostileAuthorizationServer.Rewrite.plain, .honestIssuerSpecific])
    func hostileAuthorizationEndpointRewritesTheRedirect(_ rewrite: HostileAuthorizationServer.Rewrite) async throws {
        try await Fixture.with(Self.honestConfiguration()) { honest in
            // H's client: the plain loopback URI, or the one AuthFlow registers with H for H.
            let clientID: String
            switch rewrite {
            case .plain:
                clientID = "plain-public"
            case .honestIssuerSpecific:
                let request = ClientRegistrationRequest(
                    redirectURIs: [
                        IssuerSpecificRedirect.uri(URL(string: "http://127.0.0.1/callback")!, issuer: honest.issuer)
                    ])
                clientID = try await ClientRegistration.register(request, with: ProviderMetadata.discover(issuer: honest.issuer)).clientID
            }
            let hostile = try await HostileAuthorizationServer.start(honest: honest.issuer.url, clientID: clientID, rewrite: rewrite)
            let error = await #expect(throws: AuthFlowError.self) { try await Self.signIn(toResource: hostile.base.appending(path: "api")) }
            #expect(error?.category == .invalidResponse && error?.message == "callback is not for the redirect URI that was sent")
            #expect(await hostile.tokenRequests.isEmpty)
            #expect(await hostile.authorizationRequests == 1)
            await hostile.stop()
        }
    }
}

/// A browser for the tests: opens the URL and follows every redirect (at
/// most 10), as a real one does. When it ends anywhere but at the listener
/// (an error page of the provider), it closes the listener: the user gave up.
struct FollowingBrowser: AuthorizationUserAgent {
    let listener: LoopbackListener

    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        let agent = LoopbackUserAgent(listener: listener, timeout: 20) { [listener] url in
            Task {
                let browser = HeadlessBrowser()
                var next = url
                for _ in 0..<10 {
                    guard let response = try? await browser.get(next) else { break }
                    if next.port == listener.port { return }
                    guard (300..<400).contains(response.status), let location = response.header("Location"),
                        let target = URL(string: location, relativeTo: next)?.absoluteURL
                    else { break }
                    next = target
                }
                await listener.close()
            }
        }
        return try await agent.authorize(request)
    }
}
#endif
