import Logging

extension OAuthClient {
    /// Performs an OAuth 2.0 token exchange (RFC 8693): trades the request's
    /// subject token (and actor token) for the token it asks for.
    ///
    /// The request goes to the token endpoint like every grant: with this
    /// client's ``authentication``, a DPoP proof when the client is
    /// DPoP-bound (``dpop``), and never following a redirect. Only the
    /// request's own `audience` and `resource` targets are sent; the
    /// client's ``resource`` is not added, since the token asked for is for
    /// another target than the client's.
    ///
    /// ```swift
    /// let issued = try await client.exchangeToken(
    ///     TokenExchangeRequest(subject: .init(credentials.accessToken, type: .accessToken),
    ///                          requestedTokenType: .accessToken,
    ///                          audiences: ["billing"]))
    /// let billingToken = issued.issuedToken
    /// ```
    ///
    /// - Parameter request: the tokens to present and the token wanted.
    /// - Returns: the issued token and its checked ``TokenExchangeResponse/issuedTokenType``.
    /// - Throws: ``AuthFlowError``: `configuration` for an empty or
    ///   non-ASCII token in the request; `oauth_error` when the server
    ///   refuses (such as `invalid_target` for an audience it will not issue
    ///   for, `invalid_grant` for a subject token it does not accept);
    ///   `invalid_response` for a malformed answer, or one whose
    ///   `issued_token_type` is missing or differs from the requested type.
    ///   No error or log line contains a token.
    public func exchangeToken(_ request: TokenExchangeRequest) async throws -> TokenExchangeResponse {
        let form = try request.form()
        var endpoint = tokenEndpoint
        endpoint.resource = nil
        let token = try await endpoint.request(form, requestedScopes: request.scopes, allowNotApplicable: true)
        let response = try TokenExchangeResponse(checking: token, requested: request.requestedTokenType)
        logger.info(
            "token exchanged",
            metadata: ["issued_token_type": "\(response.issuedTokenType)", "token_type": "\(response.token.tokenType)"])
        return response
    }
}
