import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OAuthClient {
    /// The client-credentials grant (RFC 6749 §4.4): an access token for the
    /// client itself, no user, no ID token.
    ///
    /// The request authenticates the client (``authentication``; a public
    /// client cannot use this grant). A DPoP-bound client (``dpop``) sends a
    /// proof, answers a `use_dpop_nonce` challenge once, and requires a
    /// `DPoP` token in return (RFC 9449 §5) unless the binding allows the
    /// downgrade.
    ///
    /// - Parameter scopes: the scopes to ask for (none when empty).
    /// - Returns: the credentials, without an ID token or a subject.
    /// - Throws: ``AuthFlowError``: `oauth_error` when the server refuses,
    ///   `invalid_response` for a malformed answer or a `Bearer` token to a
    ///   DPoP request.
    public func clientCredentials(scopes: [String] = []) async throws -> OAuthCredentials {
        var form: [(String, String)] = [("grant_type", "client_credentials")]
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        let token = try await tokenEndpoint.request(form, requestedScopes: scopes)
        logger.info("client credentials granted", metadata: ["token_type": "\(token.tokenType)"])
        return OAuthCredentials(issuer: metadata.issuer, clientID: clientID, token: token, idToken: nil)
    }
}
