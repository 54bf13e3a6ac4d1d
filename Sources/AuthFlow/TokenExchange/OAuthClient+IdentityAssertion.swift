import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension OAuthClient {
    /// At the identity provider this client signs users in with: trades the
    /// user's ID token for an Identity Assertion JWT Authorization Grant
    /// (ID-JAG) for `authorizationServer`, and checks what comes back.
    ///
    /// The request is a token exchange (RFC 8693) with
    /// `requested_token_type` ``TokenTypeIdentifier/idJAG``, `audience` the
    /// authorization server's issuer identifier and `resource` the API
    /// (draft-ietf-oauth-identity-assertion-authz-grant §4.3). The answer
    /// must be an ID-JAG, and is verified as the authorization server will
    /// verify it (``IdentityAssertion/verify(_:with:clientID:resource:maximumLifetime:now:)``)
    /// with this provider's keys: a grant for another server, client or
    /// resource is refused here, before it is presented anywhere.
    ///
    /// Which authorization server to ask for is the app's configuration:
    /// never take it from a resource's metadata or a server's challenge, or
    /// a resource could have the grant sent to a server of its choosing.
    ///
    /// ```swift
    /// let assertion = try await identityProvider.requestIdentityAssertion(
    ///     for: Issuer("https://auth.tools.example.com"), clientID: "mcp-client",
    ///     resource: ResourceIdentifier(URL(string: "https://tools.example.com/mcp")!),
    ///     idToken: credentials.token.idToken!)
    /// let credentials = try await toolsServer.redeem(assertion)
    /// ```
    ///
    /// - Parameters:
    ///   - authorizationServer: the authorization server the grant is for.
    ///   - clientID: this app's client ID at that authorization server (the
    ///     grant's `client_id`).
    ///   - resource: the API the grant is for, when the server has several.
    ///   - idToken: the user's ID token from this provider. Secret: never
    ///     logged or put in an error.
    ///   - scopes: the scopes to ask the authorization server for.
    /// - Throws: ``AuthFlowError``: `configuration` when this provider's
    ///   metadata has no issuer or `jwks_uri`; `oauth_error` when the
    ///   provider refuses; `invalid_response` when it answers with another
    ///   token type; `jwt_invalid` when the grant breaks a rule.
    public func requestIdentityAssertion(
        for authorizationServer: Issuer, clientID: String, resource: ResourceIdentifier? = nil, idToken: String,
        scopes: [String] = []
    ) async throws -> IdentityAssertion {
        guard let issuer = metadata.issuer, let keys = idTokenVerifier.keys else {
            throw AuthFlowError.configuration(
                "an identity assertion is checked with the identity provider's keys; its metadata names no issuer or jwks_uri")
        }
        let response = try await exchangeToken(
            TokenExchangeRequest(
                subject: .init(idToken, type: .idToken), requestedTokenType: .idJAG, audiences: [authorizationServer.identifier],
                resources: resource.map { [$0] } ?? [], scopes: scopes))
        let verifier = JWTVerifier(issuer: issuer, audience: authorizationServer.identifier, keys: keys, leeway: leeway)
        let assertion = try await IdentityAssertion.verify(
            response.issuedToken, with: verifier, clientID: clientID, resource: resource?.description)
        logger.info(
            "identity assertion received",
            metadata: ["authorization_server": "\(assertion.authorizationServer)", "expires_at": "\(assertion.expiresAt)"])
        return assertion
    }

    /// At the authorization server the grant is for: presents `assertion`
    /// with the JWT bearer grant (RFC 7523 §2.1) and this client's own
    /// authentication, for the grant's resource.
    ///
    /// - Throws: ``AuthFlowError``: `configuration` when the grant is for
    ///   another authorization server (this client's issuer) or another
    ///   client ID, or has expired (nothing is sent); `oauth_error` when the
    ///   server refuses it (`invalid_grant`).
    public func redeem(_ assertion: IdentityAssertion, scopes: [String] = [], now: Date = Date()) async throws -> OAuthCredentials {
        guard let issuer = metadata.issuer, issuer.identifier.hasSameBytes(as: assertion.authorizationServer) else {
            throw AuthFlowError.configuration(
                "the identity assertion is for the authorization server \(assertion.authorizationServer), "
                    + "not \(metadata.issuer?.identifier ?? "this client's provider")")
        }
        guard assertion.clientID.hasSameBytes(as: clientID) else {
            throw AuthFlowError.configuration("the identity assertion is for the client \(assertion.clientID), not \(clientID)")
        }
        guard assertion.expiresAt > now else {
            throw AuthFlowError(.timeout, "the identity assertion has expired; ask the identity provider for another")
        }
        let resource = try assertion.resources.first.flatMap(URL.init(string:)).map(ResourceIdentifier.init)
        return try await jwtBearerGrant(assertion: assertion.token, scopes: scopes, resource: resource)
    }
}
