#if MCP // the MCP package trait
public import AuthFlow
import Foundation

/// How an enterprise-managed MCP server is reached (MCP's
/// enterprise-managed authorization, SEP-990): the user's session at the
/// company's identity provider, and the MCP server's authorization server
/// with this app's client there, both from the app's configuration.
///
/// For each access token the authorizer asks the identity provider for an
/// Identity Assertion JWT Authorization Grant (ID-JAG) for that server and
/// the MCP server's resource, checks it, and presents it with the JWT bearer
/// grant (`OAuthClient.requestIdentityAssertion(for:clientID:resource:idToken:scopes:)`,
/// `OAuthClient.redeem(_:scopes:now:)`). The user signs in once,
/// at the identity provider; the MCP server never chooses where the grant
/// goes: its metadata and challenges are not followed.
///
/// ```swift
/// let tools = try await OAuthClient(
///     issuer: Issuer("https://auth.tools.example.com"), clientID: "desktop-app",
///     authentication: .clientSecretBasic(secret: secret))
/// let enterprise = try EnterpriseAuthorization(
///     identityProvider: companySession, authorizationServer: tools,
///     resource: ResourceIdentifier(URL(string: "https://tools.example.com/mcp")!))
/// let authorizer = AuthSessionAuthorizer(store: MemoryCredentialStore(), enterprise: enterprise)
/// ```
public struct EnterpriseAuthorization: Sendable {
    /// The user's session at the identity provider, signed in with `openid`
    /// (its ID token is what the grant is asked for with).
    public let identityProvider: AuthSession
    /// The MCP server's authorization server, with this app's client there;
    /// its `OAuthClient.resource` is the MCP server.
    public let authorizationServer: OAuthClient

    /// - Parameters:
    ///   - identityProvider: the user's session at the identity provider.
    ///   - authorizationServer: the configured authorization server's client.
    ///   - resource: the MCP server's resource identifier.
    /// - Throws: `AuthFlowError.Category.configuration` when the
    ///   authorization server's metadata names no issuer.
    public init(identityProvider: AuthSession, authorizationServer: OAuthClient, resource: ResourceIdentifier) throws {
        guard authorizationServer.metadata.issuer != nil else {
            throw AuthFlowError(.configuration, "the MCP server's authorization server has no issuer: an identity assertion names it")
        }
        var server = authorizationServer
        server.resource = resource
        self.identityProvider = identityProvider
        self.authorizationServer = server
    }

    /// An access token for the MCP server, `rejected` being one it refused:
    /// the identity provider's session's token for the server's resource,
    /// obtained with an identity assertion from the identity provider
    /// presented at the authorization server (`ResourceTokenGrant.identityAssertion(at:scopes:)`),
    /// and kept in that session beside its other resources' tokens.
    func credentials(scopes: [String], rejecting rejected: String?) async throws -> OAuthCredentials {
        guard let resource = authorizationServer.resource else {
            throw AuthFlowError(.configuration, "the MCP server's resource is not configured")
        }
        let token = try await identityProvider.resourceToken(
            for: resource, using: .identityAssertion(at: authorizationServer, scopes: scopes), rejecting: rejected)
        return OAuthCredentials(
            issuer: authorizationServer.metadata.issuer, clientID: authorizationServer.clientID, token: token.token, idToken: nil)
    }
}
#endif
