#if MCP // the MCP package trait
import AuthFlow
import AuthFlowMCP
import Foundation

/// The enterprise mode (MCP's enterprise-managed authorization, SEP-990):
/// the user signs in once, at the company's identity provider, in the
/// browser; the session is kept in a file, so later runs open no browser.
/// Each access token for the MCP server comes from an identity assertion
/// (ID-JAG) of that session, presented at the authorization server the
/// options name: the MCP server's metadata and challenges never choose
/// where a grant goes, and no browser opens for the MCP server.
enum ExampleEnterprise {
    /// The scope of the sign-in at the identity provider: its ID token is
    /// what an identity assertion is asked for with.
    static let identityProviderScopes = ["openid"]

    /// An authorizer for the MCP server at `server`, from the user's session at the identity provider.
    static func authorizer(_ options: EnterpriseOptions, server: URL) async throws -> AuthSessionAuthorizer {
        let identityProvider = try await identityProviderSession(options)
        // client_secret_post: the Python mcp package's authorization server reads `client_id`
        // from the form even when the secret comes in HTTP Basic, which AuthFlow sends without it.
        let authorizationServer = try await OAuthClient(
            issuer: options.authorizationServer, clientID: options.clientID,
            authentication: .clientSecretPost(secret: options.clientSecret))
        let enterprise = try EnterpriseAuthorization(
            identityProvider: identityProvider, authorizationServer: authorizationServer, resource: try ResourceIdentifier(server))
        // The MCP server's tokens live minutes and come without the user: kept in memory for this run only.
        return AuthSessionAuthorizer(store: MemoryCredentialStore(), enterprise: enterprise)
    }

    /// The user's session at the identity provider: the one kept in the
    /// options' file when it is for this provider and client and can still
    /// give an ID token, else a new sign-in in the browser (kept there).
    static func identityProviderSession(_ options: EnterpriseOptions, now: Date = Date()) async throws -> AuthSession {
        let authentication: ClientAuthentication = options.identityProviderSecret.map { .clientSecretBasic(secret: $0) } ?? .none
        let store = FileCredentialStore(url: options.identityProviderStore)
        if let restored = try await AuthSession.restore(from: store, authentication: authentication),
            restored.client.metadata.issuer == options.identityProvider,
            restored.client.clientID == options.identityProviderClientID,
            let idToken = try await restored.currentCredentials?.idToken,
            idToken.expiresAt > now.addingTimeInterval(60) || restored.canRefresh
        {
            return restored
        }
        let client = try await OAuthClient(
            issuer: options.identityProvider, clientID: options.identityProviderClientID, authentication: authentication)
        let credentials = try await ExampleSignIn.inBrowser(client, identityProviderScopes)
        return try await AuthSession.start(client: client, credentials: credentials, store: store)
    }
}
#endif
