#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth error the provider answers with (RFC 6749 §5.2, RFC 7009, RFC 8628 §3.5).
struct OAuthFailure: Error, Sendable {
    /// The `error` code.
    let code: String
    /// The `error_description`.
    let description: String
    /// The HTTP status (400, or 401 for `invalid_client`).
    let status: Int
    init(_ code: String, _ description: String, status: Int? = nil) {
        self.code = code
        self.description = description
        self.status = status ?? (code == "invalid_client" ? 401 : 400)
    }

    static func invalidRequest(_ description: String) -> OAuthFailure { .init("invalid_request", description) }
    static func invalidGrant(_ description: String) -> OAuthFailure { .init("invalid_grant", description) }
    /// `invalid_client`: 401 with `WWW-Authenticate: Basic` when the client
    /// tried HTTP Basic (RFC 6749 §5.2 requires it), else 400.
    static func invalidClient(_ description: String, triedBasic: Bool = false) -> OAuthFailure {
        .init("invalid_client", description, status: triedBasic ? 401 : 400)
    }
    static func unauthorizedClient(_ description: String) -> OAuthFailure { .init("unauthorized_client", description) }
    static func invalidScope(_ description: String) -> OAuthFailure { .init("invalid_scope", description) }

    /// The JSON error response, with `Cache-Control: no-store`.
    var response: ProviderResponse {
        var extra: [(name: String, value: String)] = []
        if status == 401 { extra.append(("WWW-Authenticate", "Basic realm=\"authflow-provider\"")) }
        return .json(
            .object(["error": .string(code), "error_description": .string(description)]), status: status, noStore: true, extraHeaders: extra
        )
    }
}
#endif
