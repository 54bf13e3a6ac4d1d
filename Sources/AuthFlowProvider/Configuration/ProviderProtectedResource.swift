#if EmbeddedProvider // the EmbeddedProvider package trait
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A demo protected resource (an API) that the ``EmbeddedProvider`` serves
/// at `path` on its own listener, so that a client can be tried against the
/// whole chain: RFC 9728 metadata, the `WWW-Authenticate` challenge, an
/// access token for its audience (RFC 8707), and a scope check.
///
/// Its identifier is the issuer followed by `path`
/// (`http://127.0.0.1:PORT/api`). It is an API behind AuthFlowHummingbird's
/// `AccessTokenMiddleware`, which discovers the provider as any API would,
/// and answers:
///
/// - `GET /.well-known/oauth-protected-resource<path>`: its metadata
///   (`resource`, `authorization_servers`, `scopes_supported`,
///   `bearer_methods_supported`, `dpop_signing_alg_values_supported`);
/// - at `path` (and below it), without a valid JWT access token whose `aud`
///   is the resource: 401 with `Bearer` and `DPoP` challenges naming
///   `resource_metadata="…"`; with one that lacks ``requiredScopes``: 403
///   `insufficient_scope` with `scope="…"`; otherwise 200 with a small JSON
///   object naming the user, the client and the token's scopes. DPoP-bound
///   tokens need the `DPoP` scheme and a proof of their key (RFC 9449 §7).
///   The token is verified by its signature, so a revoked one is accepted
///   until it expires, as at any API that does not introspect.
public struct ProviderProtectedResource: Sendable, Equatable {
    /// The path on the provider's listener, such as `/api`.
    public var path: String
    /// The scopes a token must carry (all of them) to be answered 200.
    public var requiredScopes: [String]
    /// `scopes_supported` in its metadata; ``requiredScopes`` when empty.
    public var scopesSupported: [String]
    /// The `acr` values a token must name one of (RFC 9470); empty: any.
    /// A token without one is answered 401 `insufficient_user_authentication`
    /// with `acr_values`, which a client follows by signing in again.
    public var requiredACRValues: [String] = []
    /// The most seconds since the user signed in (the token's `auth_time`,
    /// RFC 9470 `max_age`); nil: any.
    public var maxAuthenticationAge: Int? = nil

    /// A resource at `path` that requires `requiredScopes`.
    public init(path: String, requiredScopes: [String] = ["api.read"], scopesSupported: [String] = []) {
        self.path = path
        self.requiredScopes = requiredScopes
        self.scopesSupported = scopesSupported.isEmpty ? requiredScopes : scopesSupported
    }

    /// The well-known path of its metadata (RFC 9728 §3.1).
    var metadataPath: String { "/.well-known/oauth-protected-resource" + path }

    /// The well-known path of its metadata, for listings.
    package var metadataPathForListing: String { metadataPath }

    /// Whether `requestPath` is the resource or below it.
    func serves(_ requestPath: String) -> Bool {
        requestPath == path || requestPath.hasPrefix(path + "/")
    }

    /// The path of a resource given as a path (`/api`) or as a URL on the
    /// provider's own listener (`http://127.0.0.1:PORT/api`, where `PORT` is
    /// `port`, which must be fixed). `name` says where the value came from
    /// (`--resource`, a configuration member) and `portSource` what sets
    /// the port, for the messages.
    package static func path(of value: String, port: Int, name: String, portSource: String) throws -> String {
        if value.hasPrefix("/") { return value }
        guard let components = URLComponents(string: value), components.scheme == "http", components.host == "127.0.0.1",
            components.query == nil, components.fragment == nil, !components.path.isEmpty
        else {
            throw ProviderConfigurationError(
                "\(name) must be a path such as /api, or http://127.0.0.1:PORT/api on the provider's own listener")
        }
        guard components.port == port, port != 0 else {
            throw ProviderConfigurationError(
                "\(name) \(value) names port \(components.port.map(String.init) ?? "80"); give the same \(portSource), or only the path")
        }
        return components.path
    }

    func validate() throws {
        guard path.hasPrefix("/"), path.count > 1, !path.hasSuffix("/"),
            path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        else {
            throw ProviderConfigurationError("a protected resource path must look like /api (\(path))")
        }
        guard !path.hasPrefix("/.well-known/"),
            ![
                EndpointPaths.authorize, EndpointPaths.token, EndpointPaths.userinfo, EndpointPaths.revoke, EndpointPaths.introspect,
                EndpointPaths.endSession, EndpointPaths.deviceAuthorization, EndpointPaths.device, EndpointPaths.pushedAuthorization,
                EndpointPaths.jwks, EndpointPaths.registration,
            ].contains(where: { serves($0) || $0.hasPrefix(path + "/") })
        else {
            throw ProviderConfigurationError("the protected resource path \(path) collides with one of the provider's endpoints")
        }
        guard !requiredScopes.isEmpty else {
            throw ProviderConfigurationError("the protected resource \(path) must require at least one scope")
        }
        for scope in requiredScopes + scopesSupported where scope.isEmpty || scope.contains(" ") || scope.contains("\"") {
            throw ProviderConfigurationError("the protected resource scope \"\(scope)\" is not a scope token")
        }
    }
}

/// How the provider treats a `client_id` that is an https URL: a Client ID
/// Metadata Document (draft-ietf-oauth-client-id-metadata-document, the
/// Model Context Protocol's authorization specification).
///
/// The provider fetches the URL within ``maximumBytes`` bytes and
/// ``timeout`` seconds (by default the limits the AuthFlow client itself
/// applies to such documents), requires the document's `client_id` to be the URL,
/// takes its `redirect_uris`, and keeps the answer for ``cacheLifetime``
/// seconds. A document that is too large, too slow, malformed or names
/// another client is refused with an OAuth error and not kept.
public struct ClientIDMetadataDocumentSettings: Sendable, Equatable {
    /// Whether such client IDs are accepted (and
    /// `client_id_metadata_document_supported` advertised). On by default.
    public var isEnabled = true
    /// Whether `http://127.0.0.1…` (and other loopback) URLs are accepted
    /// too. For tests only: off by default, and https is required otherwise.
    public var allowsLoopbackHTTP = false
    /// Whether documents may be fetched from hosts that resolve to loopback,
    /// private, link-local or other non-public addresses (an intranet's own
    /// clients). Off by default: a client ID must not make the provider probe
    /// its own machine or network. (``allowsLoopbackHTTP``, for tests,
    /// allows them too.) The name is resolved before the fetch; a name that
    /// resolves differently a moment later is the remaining risk.
    public var allowsPrivateAddresses = false
    /// The bound on fetching one document, from start to last byte (seconds).
    public var timeout: TimeInterval = 30
    /// The largest document accepted, in bytes (64 KiB by default); a
    /// larger one is refused without being read further.
    public var maximumBytes: Int = 64 << 10
    /// The most ``maximumBytes`` may be (1 MiB).
    public static let maximumBytesLimit = 1 << 20
    /// How long a fetched document is used before it is fetched again (seconds).
    public var cacheLifetime: TimeInterval = 300

    /// The defaults: enabled, https only, 64 KiB, 30 s, kept 5 minutes.
    public init() {}

    func validate() throws {
        guard timeout > 0, timeout.isFinite else {
            throw ProviderConfigurationError("the client ID metadata document timeout must be a positive number of seconds")
        }
        guard (1...Self.maximumBytesLimit).contains(maximumBytes) else {
            throw ProviderConfigurationError(
                "the client ID metadata document size limit must be 1…\(Self.maximumBytesLimit) bytes, not \(maximumBytes)")
        }
        guard cacheLifetime >= 0, cacheLifetime.isFinite else {
            throw ProviderConfigurationError("the client ID metadata document cache lifetime must be 0 or more seconds")
        }
    }
}
#endif
