public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension OAuthClient {
    /// A client for a protected resource found by its URL, and what was
    /// learnt on the way.
    public struct ResourceAccess: Sendable {
        /// The client, with ``OAuthClient/resource`` set to the resource.
        public var client: OAuthClient
        /// The resource's metadata (RFC 9728).
        public var resourceMetadata: ProtectedResourceMetadata
        /// The registration used, new or stored: keep it with the session
        /// so that the next launch reuses it. Nil for a pre-registered
        /// client ID or a metadata document.
        public var registration: ClientRegistration?
        /// Whether ``registration`` was made now (and must be stored).
        public var registeredNow: Bool
    }

    /// Everything needed to sign in to the protected resource at `resource`,
    /// found from its URL alone:
    ///
    /// 1. its metadata (RFC 9728, ``ProtectedResourceMetadata/discover(resource:metadataURL:transport:timeout:logger:)``),
    ///    from `challenge`'s `resource_metadata` when its 401 named one;
    /// 2. the first of its authorization servers, whose metadata must name
    ///    that issuer exactly (``ProviderMetadata/discover(authorizationServer:transport:timeout:logger:)``);
    ///    the server must support PKCE with S256 (it is refused if its
    ///    metadata lists methods without it);
    /// 3. the client's identity there, in `identity`'s order (a client ID
    ///    registered by hand, a metadata document, a stored registration,
    ///    a new registration; ``ClientIdentity/choose(for:now:)``).
    ///
    /// The server is named by someone else, so the client defends against
    /// a mix-up (RFC 9700 §4.4): a new registration registers its redirect
    /// URIs with the issuer's segment appended (``IssuerSpecificRedirect``),
    /// and the client then sends the redirect URI its `signIn` gives with
    /// that segment (``usesIssuerSpecificRedirect``); a callback to any
    /// other URI is refused, and `iss` is checked whenever it is sent. An
    /// identity whose redirect URIs AuthFlow cannot choose (a client ID
    /// given without its issuer, a metadata document) is used only with a
    /// server that promises `iss`.
    ///
    /// The client sends the resource's canonical identifier as the RFC 8707
    /// `resource` parameter in every request, and carries the registration
    /// (``OAuthClient/registration``) so that a session's ``SessionRecord``
    /// keeps it. A client that reuses a stored registration pushes its
    /// authorization requests (RFC 9126) when the server has a pushed
    /// authorization request endpoint: a server that forgot the client then
    /// says `invalid_client` on the back channel, before any browser opens,
    /// instead of showing the user an error page.
    ///
    /// To register again when the server forgot a stored registration, use
    /// ``signIn(toResource:challenge:identity:transport:timeout:leeway:logger:_:)``.
    public static func forResource(
        _ resource: URL, challenge: ResourceChallenge? = nil, identity: ClientIdentity,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval = 60,
        logger: Logger = .authFlow()
    ) async throws -> ResourceAccess {
        let resourceMetadata = try await ProtectedResourceMetadata.discover(
            resource: resource, metadataURL: challenge?.resourceMetadataURL, transport: transport, timeout: timeout, logger: logger)
        let issuer = try resourceMetadata.authorizationServer()
        let metadata = try await ProviderMetadata.discover(
            authorizationServer: issuer, transport: transport, timeout: timeout, logger: logger)
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw AuthFlowError(
                .configuration, "the authorization server \(issuer) does not support PKCE with S256",
                recovery: "AuthFlow always uses PKCE with S256; this server cannot be used.")
        }
        var registration: ClientRegistration?
        var registeredNow = false
        let clientID: String
        var authentication = ClientAuthentication.none
        switch try identity.choose(for: metadata) {
        case .preRegistered(let known):
            clientID = known.clientID
            authentication = known.authentication
        case .metadataDocument(let url):
            clientID = url.absoluteString
        case .stored(let stored):
            registration = stored
            clientID = stored.clientID
            authentication = stored.authentication
        case .register(var request):
            // RFC 9700 §4.4.2.2: redirect URIs for this issuer only (the mix-up defence, IssuerSpecificRedirect).
            request.redirectURIs = request.redirectURIs.map {
                IssuerSpecificRedirect.uri($0, issuer: metadata.issuer ?? issuer)
            }
            let made = try await ClientRegistration.register(
                request, with: metadata, transport: transport, timeout: timeout, logger: logger)
            registration = made
            registeredNow = true
            clientID = made.clientID
            authentication = made.authentication
        }
        var client = try OAuthClient(
            metadata: metadata, clientID: clientID, authentication: authentication, transport: transport, timeout: timeout,
            leeway: leeway, logger: logger)
        client.resource = resourceMetadata.resource
        client.registration = registration
        if registration != nil, !registeredNow, metadata.pushedAuthorizationRequestEndpoint != nil {
            client.usesPushedAuthorizationRequests = true
        }
        return ResourceAccess(client: client, resourceMetadata: resourceMetadata, registration: registration, registeredNow: registeredNow)
    }

    /// A sign-in to the protected resource at `resource`: what was learnt
    /// finding the client (``ResourceAccess``) and what `signIn` returned.
    public struct ResourceSignIn<Result: Sendable>: Sendable {
        /// The client signed in with, and how it was found.
        public var access: ResourceAccess
        /// What the sign-in returned (credentials, usually).
        public var result: Result
        /// Whether the server had forgotten a stored registration, so the
        /// client was registered again (``ResourceAccess/registeredNow`` is then true).
        public var registeredAgain: Bool
    }

    /// Finds the client for `resource` as ``forResource(_:challenge:identity:transport:timeout:leeway:logger:)``
    /// does and runs `signIn` with it (an interactive sign-in with
    /// ``ResourceAccess/client``, asking for the scopes of the resource's
    /// challenge or its ``ProtectedResourceMetadata/scopesSupported``).
    ///
    /// When the client reused `identity`'s stored registration and `signIn`
    /// fails with the OAuth error `invalid_client` (the server forgot the
    /// client: from a pushed authorization request, the token endpoint or
    /// the authorization callback), the client is registered again once, and
    /// `signIn` runs once more with the new client. A client registered just
    /// now, a pre-registered client ID or a metadata document is never
    /// registered again: their `invalid_client` is thrown as it is, so this
    /// never loops.
    ///
    /// Keep ``ResourceSignIn/access``'s registration with the session (the
    /// client carries it, so ``AuthSession/start(client:credentials:store:leeway:)``
    /// stores it in the ``SessionRecord``).
    public static func signIn<Result: Sendable>(
        toResource resource: URL, challenge: ResourceChallenge? = nil, identity: ClientIdentity,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval = 60,
        logger: Logger = .authFlow(), _ signIn: @Sendable (ResourceAccess) async throws -> Result
    ) async throws -> ResourceSignIn<Result> {
        let access = try await forResource(
            resource, challenge: challenge, identity: identity, transport: transport, timeout: timeout, leeway: leeway, logger: logger)
        do {
            return ResourceSignIn(access: access, result: try await signIn(access), registeredAgain: false)
        } catch let error as AuthFlowError
            where error.oauth?.error == "invalid_client" && access.registration != nil && !access.registeredNow
        {
            logger.info(
                "the authorization server forgot the stored registration; registering again",
                metadata: ["client_id": "\(access.client.clientID)"])
            var fresh = identity
            fresh.storedRegistration = nil
            fresh.preRegistered = nil
            fresh.metadataDocument = nil
            let again = try await forResource(
                resource, challenge: challenge, identity: fresh, transport: transport, timeout: timeout, leeway: leeway, logger: logger)
            return ResourceSignIn(access: again, result: try await signIn(again), registeredAgain: true)
        }
    }
}
