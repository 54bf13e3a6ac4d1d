import Foundation

/// The `token_type_hint` of a revocation request (RFC 7009 §2.1).
public enum TokenTypeHint: String, Sendable {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
}

extension OAuthClient {
    /// Revokes one token at the provider's `revocation_endpoint` (RFC 7009),
    /// with the same client authentication as the token endpoint. Success is
    /// any 200 (RFC 7009 §2.2: an unknown token is not an error).
    public func revoke(_ token: String, hint: TokenTypeHint) async throws {
        guard let endpoint = metadata.revocationEndpoint else {
            throw AuthFlowError.configuration("the provider has no revocation endpoint")
        }
        let revocation = TokenEndpoint(url: endpoint, clientID: clientID, authentication: authentication,
                                       transport: transport, timeout: timeout, logger: logger, purpose: .revocation)
        _ = try await revocation.post([("token", token), ("token_type_hint", hint.rawValue)], what: "revocation (\(hint.rawValue))")
    }

    /// Revokes the refresh token first (which on most servers ends the whole
    /// grant), then the access token.
    public func revokeAll(_ credentials: Credentials) async throws {
        if let refreshToken = credentials.token.refreshToken {
            try await revoke(refreshToken, hint: .refreshToken)
        }
        try await revoke(credentials.accessToken, hint: .accessToken)
    }

    /// The RP-initiated logout URL (OpenID Connect RP-Initiated Logout 1.0 §2),
    /// or nil when the provider has no `end_session_endpoint`.
    public func endSessionURL(idTokenHint: String?, postLogoutRedirectURI: URL? = nil, state: String? = nil) throws -> URL? {
        guard let endpoint = metadata.endSessionEndpoint else { return nil }
        var pairs: [(String, String)] = [("client_id", clientID)]
        if let idTokenHint { pairs.append(("id_token_hint", idTokenHint)) }
        if let postLogoutRedirectURI { pairs.append(("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString)) }
        if let state { pairs.append(("state", state)) }
        return try AuthorizationRequest.appending(pairs, to: endpoint)
    }
}
