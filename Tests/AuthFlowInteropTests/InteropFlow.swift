import AuthFlow
import AuthFlowLoopback
import AuthFlowTestSupport
import Foundation
import Logging

/// Runs the authorization part of the code flow against a real server, with
/// headless Chromium (the config's `$BROWSER` program) filling in its pages.
struct InteropFlow {
    let config: InteropConfig
    let server: InteropConfig.Server
    let log = LogCapture()

    init(_ name: String) throws {
        config = try InteropConfig.load()
        server = try config.server(name)
    }

    func client(_ authentication: ClientAuthentication = .none, clientID: String? = nil) async throws -> OAuthClient {
        try await OAuthClient(
            issuer: Issuer(server.issuer), clientID: clientID ?? server.publicClientID,
            authentication: authentication, timeout: 20, logger: log.logger())
    }

    /// Sends the browser through authorization and returns the validated grant,
    /// together with the request (which holds state, nonce and verifier).
    func authorize(_ client: OAuthClient, scopes: [String] = ["openid", "profile"]) async throws -> (
        AuthorizationRequest, AuthorizationGrant
    ) {
        let listener = try await LoopbackListener.start(logger: log.logger())
        do {
            let request = try client.authorizationRequest(redirectURI: listener.redirectURI, scopes: scopes)
            try SystemBrowser.open(request.url, browser: config.browser)
            let callback = try await listener.waitForCallback(for: request, timeout: 60)
            await listener.close()
            return (request, try request.validateCallback(callback))
        } catch {
            await listener.close()
            throw error
        }
    }
}
