#if MCP // the MCP package trait
import AuthFlow
import Foundation
import Logging

extension AuthSessionAuthorizer {
    /// A new access token for an enterprise-managed server, with `scopes`:
    /// an identity assertion from the identity provider's session, redeemed
    /// at the configured authorization server; kept in ``store`` and held
    /// for the MCP server's requests. No browser, and the server's
    /// challenge is not followed.
    func signInWithIdentityAssertion(_ enterprise: EnterpriseAuthorization, scopes: [String]) async throws {
        // The token held now is renewed: the server refused it, or needs more scopes.
        let held = fields.withLock { $0.held?.accessToken }
        let credentials = try await enterprise.credentials(scopes: scopes, rejecting: held)
        let session = try await AuthSession.start(
            client: enterprise.authorizationServer, credentials: credentials, store: store, leeway: leeway)
        fields.withLock { fields in
            fields.session = session
            fields.refreshedAfterRefusal = nil
            fields.signedInDuringRequest = true
        }
        hold(credentials, of: session)
        logger.info(
            "an identity assertion was redeemed for the MCP server", metadata: ["scope": "\(credentials.scopes.joined(separator: " "))"])
    }
}
#endif
