#if Hummingbird // the Hummingbird package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How a ``ProtectedResource`` checks requests, beyond its issuer and
/// resource identifier. The defaults accept Bearer and DPoP-bound JWT
/// access tokens signed with RS256, PS256, ES256 or EdDSA.
public struct ProtectedResourceOptions: Sendable {
    /// The API's own client credentials at the authorization server, for
    /// introspecting opaque tokens (RFC 7662, `client_secret_basic`). Without
    /// them only JWT access tokens are accepted.
    public var introspectionClient: (id: String, secret: String)?
    /// The introspection endpoint, for an authorization server whose metadata
    /// does not name its `introspection_endpoint` (Django OAuth Toolkit's
    /// is `/o/introspect/`); by default the metadata's.
    public var introspectionEndpoint: URL?
    /// The longest an introspection answer is reused (it is never reused past the token's `exp`).
    public var introspectionCacheMaximumAge: TimeInterval = 300
    /// The most introspection answers kept.
    public var introspectionCacheCapacity: Int = 10_000
    /// Whether an introspection answer must name this API in `aud`. An answer
    /// with an `aud` must always name it; off by default, an answer without
    /// `aud` is accepted, because many authorization servers (Django OAuth
    /// Toolkit among them) leave it out. Turn it on when yours sends it:
    /// then a token the server issued for any other API is refused too.
    public var introspectionRequiresAudience = false
    /// The algorithms a JWT access token may be signed with.
    public var tokenAlgorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"]
    /// The algorithms a DPoP proof may be signed with (`dpop_signing_alg_values_supported`).
    public var dpopAlgorithms: Set<String> = ["ES256", "RS256", "PS256", "EdDSA"]
    /// Whether only DPoP-bound tokens are accepted (`dpop_bound_access_tokens_required`, RFC 9728 §2).
    public var requiresDPoP: Bool = false
    /// When set, every DPoP proof must carry a server nonce (RFC 9449 §9) that
    /// changes this often, in seconds; a proof without the current one is
    /// answered with `use_dpop_nonce` and a `DPoP-Nonce` field.
    public var dpopNonceLifetime: TimeInterval?
    /// How far a DPoP proof's `iat` may be from now, either way.
    public var dpopProofMaximumSkew: TimeInterval = 60
    /// Where used DPoP proof identifiers are remembered; share one store
    /// between instances that serve the same API.
    public var replayCache: any ReplayCache = MemoryReplayCache()
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
    public var leeway: TimeInterval = 60
    /// The scopes the API publishes (`scopes_supported`).
    public var scopesSupported: [String] = []
    /// A name for people (`resource_name`).
    public var resourceName: String?
    /// The `realm` of the challenges, when set.
    public var realm: String?
    /// The longest a request to the authorization server may take, in seconds.
    public var timeout: TimeInterval = 10

    /// The defaults.
    public init() {}
}
#endif
