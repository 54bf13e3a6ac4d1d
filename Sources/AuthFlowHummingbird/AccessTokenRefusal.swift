#if Hummingbird // the Hummingbird package trait
/// Why ``ProtectedResource/verify(authorization:dpopProofs:method:path:requiredScopes:)``
/// refused a request, and what to answer (RFC 6750 §3, RFC 9449 §7.1).
public struct AccessTokenRefusal: Error, Sendable, Equatable {
    /// The HTTP status: 400, 401, 403, or 503 when a store the check needs failed.
    public let status: Int
    /// The `error` code (`invalid_request`, `invalid_token`, `insufficient_scope`,
    /// `invalid_dpop_proof`, `use_dpop_nonce`); nil when no credentials were sent.
    public let error: String?
    /// The failing rule, for people; never the token or the proof.
    public let errorDescription: String?
    /// The `WWW-Authenticate` values to answer with.
    public let challenges: [String]
    /// The `DPoP-Nonce` to answer with, when the API requires nonces.
    public let dpopNonce: String?
}
#endif
