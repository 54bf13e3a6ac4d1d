#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a protected resource (an API) says about itself: OAuth 2.0 Protected
/// Resource Metadata, RFC 9728 §2.
///
/// Get one with ``discover(resource:metadataURL:transport:timeout:logger:)``,
/// which finds the document, checks that it describes the resource asked
/// for, and requires every URL in it to be https (loopback hosts excepted).
public struct ProtectedResourceMetadata: Sendable, Equatable {
    /// `resource`: the resource's identifier, in canonical form. Tokens are
    /// requested for it (the RFC 8707 `resource` parameter).
    public var resource: ResourceIdentifier
    /// `authorization_servers`: the issuers that issue tokens for the
    /// resource, in the resource's order of preference.
    public var authorizationServers: [Issuer]
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `bearer_methods_supported` (`header`, `body`, `query`).
    public var bearerMethodsSupported: [String]?
    /// `dpop_signing_alg_values_supported` (RFC 9449 §5.1).
    public var dpopSigningAlgValuesSupported: [String]?
    /// `dpop_bound_access_tokens_required`: when true, the resource accepts
    /// only DPoP-bound access tokens.
    public var dpopBoundAccessTokensRequired: Bool
    /// `resource_name`, for people; never used in a decision.
    public var resourceName: String?
    /// Every member of the document, including ones AuthFlow does not model.
    public var document: [String: JSONMemberValue]

    /// Metadata for a resource that publishes none, built from what is
    /// known of it.
    public init(resource: ResourceIdentifier, authorizationServers: [Issuer], scopesSupported: [String]? = nil) {
        self.resource = resource
        self.authorizationServers = authorizationServers
        self.scopesSupported = scopesSupported
        dpopBoundAccessTokensRequired = false
        document = [:]
    }

    /// Parses a metadata document.
    ///
    /// A missing or malformed `resource`, known members of the wrong type, or
    /// an authorization server that is not an absolute URL are
    /// ``AuthFlowError/Category/invalidResponse``; an http `resource` or
    /// authorization server on a host other than a loopback one is
    /// ``AuthFlowError/Category/configuration``.
    public init(json data: Data) throws {
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("protected resource metadata is not a JSON object")
        }
        let reader = MemberReader(object: object, context: "protected resource metadata")
        resource = try ResourceIdentifier(reader.requiredURL("resource"))
        let servers = try reader.strings("authorization_servers") ?? []
        authorizationServers = try servers.map { text in
            guard let url = URL(string: text), url.scheme != nil, url.host?.isEmpty == false else {
                throw AuthFlowError.invalidResponse("protected resource metadata: authorization_servers must hold absolute URLs")
            }
            try URLPolicy.requireSecure(url, "an authorization server of the resource")
            return try Issuer(text)
        }
        scopesSupported = try reader.strings("scopes_supported")
        bearerMethodsSupported = try reader.strings("bearer_methods_supported")
        dpopSigningAlgValuesSupported = try reader.strings("dpop_signing_alg_values_supported")
        dpopBoundAccessTokensRequired = try reader.bool("dpop_bound_access_tokens_required") ?? false
        resourceName = try reader.string("resource_name")
        document = object
    }

    /// The issuer to sign in with: the first of ``authorizationServers``.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the resource
    ///   names no authorization server.
    public func authorizationServer() throws -> Issuer {
        guard let first = authorizationServers.first else {
            throw AuthFlowError(
                .configuration, "the protected resource \(resource) names no authorization server",
                recovery: "The API publishes no authorization_servers in its metadata: give the issuer to sign in with yourself.")
        }
        return first
    }
}
