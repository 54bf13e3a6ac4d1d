#if Hummingbird // the Hummingbird package trait
/// Why a request was refused (RFC 6750 §3.1, RFC 9449 §7.1, §9): the HTTP
/// status, the `error` code of the challenge and a description that names
/// the failing rule, never the token or the proof.
struct AccessFailure: Error, Sendable, Equatable {
    /// 400, 401 or 403 (or 503 when a store the check needs failed).
    let status: Int
    /// `invalid_request`, `invalid_token`, `insufficient_scope`, `invalid_dpop_proof`, `use_dpop_nonce`; nil when no credentials were sent.
    let error: String?
    /// For people; no secrets.
    let description: String?
    /// The scopes the route needs (`insufficient_scope`).
    let scope: String?
    /// Which challenge carries the error: the scheme the request used.
    let scheme: AuthorizationScheme
    /// The authentication the route needs (`insufficient_user_authentication`, RFC 9470).
    var authentication: AuthenticationRequirement? = nil

    static func invalidToken(_ description: String, scheme: AuthorizationScheme) -> AccessFailure {
        AccessFailure(status: 401, error: "invalid_token", description: description, scope: nil, scheme: scheme)
    }

    static func invalidRequest(_ description: String, scheme: AuthorizationScheme = .bearer) -> AccessFailure {
        AccessFailure(status: 400, error: "invalid_request", description: description, scope: nil, scheme: scheme)
    }

    static func invalidProof(_ description: String) -> AccessFailure {
        AccessFailure(status: 401, error: "invalid_dpop_proof", description: description, scope: nil, scheme: .dpop)
    }

    static func insufficientScope(_ required: [String], scheme: AuthorizationScheme) -> AccessFailure {
        AccessFailure(
            status: 403, error: "insufficient_scope", description: "the access token lacks a scope this resource needs",
            scope: required.joined(separator: " "), scheme: scheme)
    }

    static func insufficientUserAuthentication(
        _ requirement: AuthenticationRequirement, _ description: String, scheme: AuthorizationScheme
    ) -> AccessFailure {
        AccessFailure(
            status: 401, error: "insufficient_user_authentication", description: description, scope: nil, scheme: scheme,
            authentication: requirement)
    }

    /// No credentials at all: a challenge without an error (RFC 6750 §3.1).
    static let missing = AccessFailure(status: 401, error: nil, description: nil, scope: nil, scheme: .bearer)

    /// A store the check depends on failed: refused, never let through.
    static func unavailable(_ description: String) -> AccessFailure {
        AccessFailure(status: 503, error: nil, description: description, scope: nil, scheme: .bearer)
    }
}

/// The authentication scheme of an `Authorization` header.
enum AuthorizationScheme: Sendable, Equatable {
    /// `Bearer` (RFC 6750).
    case bearer
    /// `DPoP` (RFC 9449 §7.1).
    case dpop
}
#endif
