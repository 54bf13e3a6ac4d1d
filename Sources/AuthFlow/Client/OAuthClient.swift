public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An OAuth 2.0 / OpenID Connect client for one provider: builds
/// authorization requests, validates callbacks, redeems codes and verifies
/// ID tokens.
///
/// ```swift
/// let client = try await OAuthClient(issuer: Issuer("https://id.example.com"),
///                                    clientID: "com.example.app")
/// let credentials = try await client.signIn(redirectURI: redirect,
///                                           scopes: ["openid", "profile"],
///                                           userAgent: agent)
/// ```
public struct OAuthClient: Sendable {
    /// The provider's metadata (discovered or given).
    public let metadata: ProviderMetadata
    /// The client identifier.
    public let clientID: String
    /// How the client authenticates at the token endpoint.
    public let authentication: ClientAuthentication
    /// Bound on each network request, in seconds.
    public let timeout: TimeInterval
    /// Allowed clock skew for ID tokens, in seconds.
    public let leeway: TimeInterval
    /// The network.
    public let transport: any HTTPTransport
    /// Where AuthFlow logs. Nothing secret is ever logged.
    public let logger: Logger
    /// The ID-token verifier (keys of this issuer, cached).
    public let idTokenVerifier: IDTokenVerifier
    /// Push authorization requests (RFC 9126) even when the provider does not require it.
    public var usesPushedAuthorizationRequests = false
    /// Binds tokens to a DPoP key (RFC 9449): proofs on token requests,
    /// `dpop_jkt` in authorization requests.
    public var dpop: DPoPBinding?
    /// The protected resource (API) the tokens are for (RFC 8707): sent as
    /// `resource` in the authorization request, every token request (code,
    /// refresh, device code, client credentials) and the pushed and device
    /// authorization requests, so that the access token's audience is that
    /// resource. See ``ProtectedResourceMetadata``.
    public var resource: ResourceIdentifier?
    /// The dynamic registration (RFC 7591) ``clientID`` comes from, when it
    /// was registered that way (``forResource(_:challenge:identity:transport:timeout:leeway:logger:)``
    /// sets it). Kept in the session's ``SessionRecord`` so that the next
    /// launch reuses it; never sent.
    public var registration: ClientRegistration?

    /// A client for a provider whose metadata is known (explicit endpoints).
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` if an endpoint is
    ///   not https (loopback hosts excepted) or the client id is empty.
    public init(
        metadata: ProviderMetadata, clientID: String, authentication: ClientAuthentication = .none,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval = 60,
        acceptedAlgorithms: Set<String>? = nil, logger: Logger = .authFlow()
    ) throws {
        guard !clientID.isEmpty else {
            throw AuthFlowError(
                .configuration, "client_id is empty",
                recovery: "Give the client ID the provider registered for this app (clientID).", remedy: .giveTheClientID)
        }
        guard timeout > 0 else { throw AuthFlowError.configuration("timeout must be positive") }
        try metadata.validateTransportSecurity()
        try authentication.validate()
        if let issuer = metadata.issuer, issuer.isTemplate, metadata.issuerTenants == nil {
            throw AuthFlowError(
                .configuration, "the issuer \(issuer) is a multi-tenant template and no tenants were allowed",
                recovery: IssuerAdvice.multiTenant, remedy: .chooseTenants)
        }
        self.metadata = metadata
        self.clientID = clientID
        self.authentication = authentication.resolvingAudience(issuer: metadata.issuer, tokenEndpoint: metadata.tokenEndpoint)
        self.transport = transport
        self.timeout = timeout
        self.leeway = leeway
        self.logger = logger
        let keys = try metadata.jwksURI.map { try KeySetCache(jwksURI: $0, transport: transport, timeout: timeout, logger: logger) }
        idTokenVerifier = IDTokenVerifier(
            keys: keys, clientSecret: authentication.secret, acceptedAlgorithms: acceptedAlgorithms,
            providerAlgorithms: metadata.idTokenSigningAlgValuesSupported)
    }

    /// A client for `issuer`, discovered first (OpenID Connect Discovery, then RFC 8414).
    ///
    /// `tenants` opts in to a multi-tenant issuer (Microsoft Entra ID's
    /// `https://login.microsoftonline.com/common/v2.0`), whose metadata names
    /// the template `…/{tenantid}/v2.0`: see ``IssuerTenants``. Without it
    /// such a provider is refused with ``AuthFlowError/Category/issuerMismatch``.
    public init(
        issuer: Issuer, clientID: String, authentication: ClientAuthentication = .none, tenants: IssuerTenants? = nil,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval = 60,
        acceptedAlgorithms: Set<String>? = nil, logger: Logger = .authFlow()
    ) async throws {
        let metadata = try await ProviderMetadata.discover(
            issuer: issuer, tenants: tenants, transport: transport, timeout: timeout,
            logger: logger)
        try self.init(
            metadata: metadata, clientID: clientID, authentication: authentication, transport: transport,
            timeout: timeout, leeway: leeway, acceptedAlgorithms: acceptedAlgorithms, logger: logger)
    }

    /// A new authorization request with fresh state, nonce and PKCE verifier.
    ///
    /// A client that ``usesIssuerSpecificRedirect`` sends `redirectURI` with
    /// its issuer's segment appended (the request's
    /// ``AuthorizationRequest/redirectURI`` says which URI was sent).
    public func authorizationRequest(redirectURI: URL, scopes: [String], options: AuthorizationOptions = .init()) throws
        -> AuthorizationRequest
    {
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw AuthFlowError(
                .configuration, "the provider does not support PKCE with S256",
                recovery: "Enable PKCE (S256) for this client in the provider's settings; AuthFlow always sends it.")
        }
        var options = options
        let redirectURI = issuerSpecificRedirectURI(redirectURI)
        if let dpop { options.additionalParameters.append(.init("dpop_jkt", dpop.key.thumbprint)) }
        if let resource, !options.additionalParameters.contains(where: { $0.name == "resource" }) {
            options.additionalParameters.append(.init("resource", resource.description))
        }
        let request = try AuthorizationRequest(
            metadata: metadata, clientID: clientID, redirectURI: redirectURI, scopes: scopes, options: options)
        logger.debug(
            "authorization request created",
            metadata: ["redirect_uri": "\(redirectURI.absoluteString)", "scope": "\(scopes.joined(separator: " "))"])
        return request
    }

    /// Redeems an authorization code (RFC 6749 §4.1.3 with the PKCE verifier)
    /// and verifies the ID token, if one is returned.
    public func exchange(_ grant: AuthorizationGrant) async throws -> OAuthCredentials {
        guard grant.clientID == clientID else { throw AuthFlowError.configuration("the grant was issued to another client") }
        if let issuer = grant.issuer, let own = metadata.issuer, issuer != own {
            throw AuthFlowError(.issuerMismatch, "the grant comes from issuer \(issuer), this client is for \(own)")
        }
        _ = try AuthorizationRequest.PKCE(verifier: grant.codeVerifier)
        let form: [(String, String)] = [
            ("grant_type", "authorization_code"),
            ("code", grant.code),
            ("redirect_uri", grant.redirectURI.absoluteString),
            ("code_verifier", grant.codeVerifier),
        ]
        let token = try await tokenEndpoint.request(form, requestedScopes: grant.requestedScopes)
        let claims = try await verifyIDToken(
            in: token, nonce: grant.nonce, maxAge: grant.maxAge, acrValues: grant.requiredACRValues,
            required: grant.requestedScopes.contains("openid"))
        logger.info(
            "signed in",
            metadata: ["issuer": "\(metadata.issuer?.identifier ?? "-")", "id_token": "\(claims == nil ? "none" : "verified")"])
        return OAuthCredentials(issuer: metadata.issuer, clientID: clientID, token: token, idToken: claims)
    }

    /// Whether this client's redirect URIs name its issuer
    /// (``IssuerSpecificRedirect``, the mix-up defence of RFC 9700 §4.4.2.2):
    /// true when its ``registration`` registered an issuer-specific redirect
    /// URI, as every registration made by
    /// ``forResource(_:challenge:identity:transport:timeout:leeway:logger:)`` does.
    /// Such a client sends `redirectURI` with the issuer's segment appended
    /// (``authorizationRequest(redirectURI:scopes:options:)``), and the
    /// callback must come back to exactly that URI.
    public var usesIssuerSpecificRedirect: Bool {
        guard let issuer = metadata.issuer, let registration else { return false }
        return registration.redirectURIs.contains { IssuerSpecificRedirect.isSpecific($0, to: issuer) }
    }

    /// `redirectURI` as this client sends it: with its issuer's segment when
    /// ``usesIssuerSpecificRedirect``.
    public func issuerSpecificRedirectURI(_ redirectURI: URL) -> URL {
        guard usesIssuerSpecificRedirect, let issuer = metadata.issuer else { return redirectURI }
        return IssuerSpecificRedirect.uri(redirectURI, issuer: issuer)
    }

    /// The whole authorization code flow: request, user agent, callback
    /// validation, code exchange, ID-token verification.
    public func signIn(
        redirectURI: URL, scopes: [String], options: AuthorizationOptions = .init(),
        userAgent: some AuthorizationUserAgent
    ) async throws -> OAuthCredentials {
        let grant = try await authorize(redirectURI: redirectURI, scopes: scopes, options: options, userAgent: userAgent)
        return try await exchange(grant)
    }

    /// `url` as an endpoint that authenticates this client as the token
    /// endpoint does (device and backchannel authentication, PAR,
    /// revocation), its answers read with `purpose`'s size limit.
    func authenticatedEndpoint(_ url: URL, purpose: HTTPTransportRequest.Purpose, dpop: DPoPBinding? = nil) -> TokenEndpoint {
        TokenEndpoint(
            url: url, clientID: clientID, authentication: authentication, transport: transport, timeout: timeout, logger: logger,
            dpop: dpop, purpose: purpose)
    }

    var tokenEndpoint: TokenEndpoint {
        TokenEndpoint(
            url: metadata.tokenEndpoint, clientID: clientID, authentication: authentication,
            transport: transport, timeout: timeout, logger: logger, dpop: dpop, resource: resource)
    }

    /// Verifies the ID token of a token response. An `openid` request with no
    /// ID token in the answer is `invalid_response`. Without a known issuer
    /// (explicit endpoints, no discovery) an ID token cannot be verified: its
    /// claims are then not used at all and `nil` is returned.
    func verifyIDToken(
        in token: TokenResponse, nonce: String?, maxAge: Int?, acrValues: [String]? = nil, required: Bool
    ) async throws -> IDTokenClaims? {
        guard let issuer = metadata.issuer else {
            if token.idToken != nil { logger.warning("ID token ignored: no issuer is configured, so it cannot be verified") }
            return nil
        }
        guard let idToken = token.idToken else {
            if required { throw AuthFlowError.invalidResponse("openid was requested but the token response has no id_token") }
            return nil
        }
        var rules = IDTokenRules(
            issuer: issuer, clientID: clientID, nonce: nonce, maxAge: maxAge, leeway: leeway,
            tenants: metadata.issuerTenants)
        rules.acrValues = acrValues
        return try await idTokenVerifier.verify(idToken, rules: rules, accessToken: token.accessToken)
    }
}
