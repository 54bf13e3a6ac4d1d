public import Foundation
public import Logging

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
    ///    a new registration).
    ///
    /// The client sends the resource's canonical identifier as the RFC 8707
    /// `resource` parameter in every request.
    public static func forResource(
        _ resource: URL, challenge: ResourceChallenge? = nil, identity: ClientIdentity,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval = 60,
        logger: Logger = Logger(label: "AuthFlow")
    ) async throws -> ResourceAccess {
        let resourceMetadata = try await ProtectedResourceMetadata.discover(
            resource: resource, metadataURL: challenge?.resourceMetadataURL, transport: transport, timeout: timeout, logger: logger)
        let issuer = try resourceMetadata.authorizationServer()
        let metadata = try await ProviderMetadata.discover(
            authorizationServer: issuer, transport: transport, timeout: timeout, logger: logger)
        if let methods = metadata.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw AuthFlowError(
                .configuration, "the authorization server \(issuer.absoluteString) does not support PKCE with S256",
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
        case .register(let request):
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
        return ResourceAccess(client: client, resourceMetadata: resourceMetadata, registration: registration, registeredNow: registeredNow)
    }
}
