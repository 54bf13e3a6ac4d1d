#if MCP // the MCP package trait
import AuthFlow
import AuthFlowLoopback
import Foundation

/// How the example signs in: a registration for a native app whose
/// redirect is the loopback listener (any port, RFC 8252 §7.3), and the
/// browser of `$BROWSER` (as `authflow login` opens it).
enum ExampleSignIn {
    static let identity = ClientIdentity(
        registration: ClientRegistrationRequest(
            redirectURIs: [URL(string: "http://127.0.0.1/callback")!], clientName: "AuthFlow MCP example",
            softwareID: "authflow-mcp-example", softwareVersion: "1.0.0"))

    /// Opens the authorization URL in the browser and waits for the redirect on a new listener.
    static func inBrowser(_ client: OAuthClient, _ scopes: [String]) async throws -> OAuthCredentials {
        let listener = try await LoopbackListener.start()
        let agent = LoopbackUserAgent(listener: listener, timeout: 120) { url in
            do {
                try SystemBrowser.open(url)
            } catch {
                // The URL carries the request's state: shown only when no browser could take it.
                FileHandle.standardError.write(Data("Open this URL in a browser to sign in:\n\(url.absoluteString)\n".utf8))
            }
        }
        do {
            let credentials = try await client.signIn(redirectURI: listener.redirectURI, scopes: scopes, userAgent: agent)
            await listener.close()
            return credentials
        } catch {
            await listener.close()
            throw error
        }
    }
}
#endif
