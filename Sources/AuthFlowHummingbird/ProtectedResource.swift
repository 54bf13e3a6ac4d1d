#if Hummingbird // the Hummingbird package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import Logging

/// An API that accepts access tokens from one authorization server: what
/// ``AccessTokenMiddleware`` checks requests with, and what the API's
/// protected-resource metadata (RFC 9728) says.
///
/// Create one per API with ``discover(issuer:resource:options:transport:logger:)``
/// and share it between middlewares: it holds the issuer's JWK Set, the
/// introspection cache and the DPoP replay store.
public final class ProtectedResource: Sendable {
    /// The authorization server (`iss` of the tokens).
    public let issuer: Issuer
    /// The API's resource identifier (RFC 8707, RFC 9728 `resource`): the
    /// `aud` its tokens must carry, and the public origin its DPoP proofs' `htu` name.
    public let resource: URL
    /// The options it was created with.
    public let options: ProtectedResourceOptions
    let jwtRules: JWTAccessTokenRules
    /// The issuer's JWK Set, shared with the logout token rules.
    let keys: KeySetCache
    let introspection: TokenIntrospection?
    let proofVerifier: DPoPProofVerifier
    let nonces: DPoPNonces?
    let challenges: AuthenticationChallenges
    let logger: Logger

    /// Discovers `issuer` (its `jwks_uri` and `introspection_endpoint`) and
    /// returns the API `resource`.
    /// - Parameters:
    ///   - issuer: the authorization server's issuer identifier.
    ///   - resource: the API's resource identifier, an absolute `https` URL (or loopback `http`) without query or fragment.
    ///   - options: what else to check; introspection needs ``ProtectedResourceOptions/introspectionClient``.
    ///   - transport: how to reach the authorization server.
    ///   - logger: where to log (never a token).
    /// - Throws: `AuthFlowError` when discovery fails, when the issuer has no
    ///   `jwks_uri`, or introspection is asked for and neither the options nor
    ///   the metadata name an introspection endpoint, or it is not https (loopback excepted).
    public static func discover(
        issuer: Issuer, resource: URL, options: ProtectedResourceOptions = ProtectedResourceOptions(),
        transport: any HTTPTransport = URLSessionTransport(), logger: Logger = .authFlow("Hummingbird")
    ) async throws -> ProtectedResource {
        guard let components = URLComponents(url: resource, resolvingAgainstBaseURL: false), components.host != nil,
            components.query == nil, components.fragment == nil, DPoPTarget.normalized(resource.absoluteString) != nil
        else {
            throw AuthFlowError(.configuration, "the resource identifier must be an absolute http(s) URL without query or fragment")
        }
        try URLPolicy.requireSecure(resource, "resource")
        let metadata = try await ProviderMetadata.discover(issuer: issuer, transport: transport, timeout: options.timeout, logger: logger)
        guard let jwksURI = metadata.jwksURI else { throw AuthFlowError(.configuration, "the issuer publishes no jwks_uri") }
        let keys = try KeySetCache(jwksURI: jwksURI, transport: transport, timeout: options.timeout, logger: logger)
        var introspection: TokenIntrospection?
        if let client = options.introspectionClient {
            guard let endpoint = options.introspectionEndpoint ?? metadata.introspectionEndpoint else {
                throw AuthFlowError(.configuration, "the issuer publishes no introspection_endpoint")
            }
            try URLPolicy.requireSecure(endpoint, "introspection_endpoint")
            introspection = TokenIntrospection(
                endpoint: endpoint, clientID: client.id, clientSecret: client.secret, issuer: issuer,
                resource: resource.absoluteString, maximumAge: options.introspectionCacheMaximumAge, leeway: options.leeway,
                transport: transport, timeout: options.timeout, cache: IntrospectionCache(capacity: options.introspectionCacheCapacity),
                requiresAudience: options.introspectionRequiresAudience)
        }
        return ProtectedResource(
            issuer: issuer, resource: resource, options: options, keys: keys, introspection: introspection, logger: logger)
    }

    private init(
        issuer: Issuer, resource: URL, options: ProtectedResourceOptions, keys: KeySetCache, introspection: TokenIntrospection?,
        logger: Logger
    ) {
        self.issuer = issuer
        self.resource = resource
        self.options = options
        self.introspection = introspection
        self.logger = logger
        self.keys = keys
        jwtRules = JWTAccessTokenRules(
            verifier: JWTVerifier(
                issuer: issuer, audience: resource.absoluteString, keys: keys, algorithms: options.tokenAlgorithms,
                leeway: options.leeway))
        let proofVerifier = DPoPProofVerifier(acceptedAlgorithms: options.dpopAlgorithms, maximumSkew: options.dpopProofMaximumSkew)
        self.proofVerifier = proofVerifier
        nonces = options.dpopNonceLifetime.map(DPoPNonces.init(lifetime:))
        challenges = AuthenticationChallenges(
            realm: options.realm, resourceMetadata: Self.metadataURL(for: resource).absoluteString,
            dpopAlgorithms: proofVerifier.acceptedAlgorithms.sorted(), bearerAllowed: !options.requiresDPoP, dpopAllowed: true)
    }

    /// Where the API's protected-resource metadata is served (RFC 9728 §3.1):
    /// `/.well-known/oauth-protected-resource`, followed by the resource
    /// identifier's path when it has one.
    public var metadataPath: String { Self.metadataURL(for: resource).path }

    static func metadataURL(for resource: URL) -> URL {
        var components = URLComponents(url: resource, resolvingAgainstBaseURL: false) ?? URLComponents()
        let path = components.path == "/" ? "" : components.path
        components.path = "/.well-known/oauth-protected-resource" + path
        return components.url ?? resource
    }

    /// The protected-resource metadata document (RFC 9728 §2), as JSON.
    public var metadataDocument: Data {
        var members: [String: JSONMemberValue] = [
            "resource": .string(resource.absoluteString),
            "authorization_servers": .array([.string(issuer.identifier)]),
            "bearer_methods_supported": .array([.string("header")]),
            "dpop_signing_alg_values_supported": .array(proofVerifier.acceptedAlgorithms.sorted().map(JSONMemberValue.string)),
            "dpop_bound_access_tokens_required": .bool(options.requiresDPoP),
        ]
        if !options.scopesSupported.isEmpty { members["scopes_supported"] = .array(options.scopesSupported.map(JSONMemberValue.string)) }
        if let name = options.resourceName { members["resource_name"] = .string(name) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(members)) ?? Data("{}".utf8)
    }
}
#endif
