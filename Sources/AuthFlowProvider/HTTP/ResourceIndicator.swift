#if EmbeddedProvider // the EmbeddedProvider package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resource indicators (RFC 8707): the `resource` parameter of
/// authorization, device authorization, pushed and token requests.
///
/// One `resource` per request (a repeated parameter is `invalid_request`,
/// as for every parameter here). It must be an absolute URI without a
/// fragment (RFC 8707 §2), else `invalid_target`.
enum ResourceIndicator {
    /// The `resource` of `form`, checked; nil when absent.
    static func parse(_ form: StrictForm) throws(OAuthFailure) -> String? {
        guard let value = form["resource"] else { return nil }
        guard let url = URL(string: value), let scheme = url.scheme, !scheme.isEmpty,
            value.hasPrefix(scheme + ":"), url.host?.isEmpty == false || scheme.lowercased() == "urn"
        else {
            throw OAuthFailure("invalid_target", "resource must be an absolute URI (RFC 8707 §2)")
        }
        guard !value.contains("#") else { throw OAuthFailure("invalid_target", "resource must not contain a fragment (RFC 8707 §2)") }
        return value
    }

    /// What a token request's `requested` resource may be for a grant
    /// authorized for `granted`: the same resource, or any when the grant
    /// named none. Nil: the grant's own.
    static func check(_ requested: String?, granted: String?) throws(OAuthFailure) -> String? {
        guard let requested else { return nil }
        if let granted, granted != requested {
            throw OAuthFailure("invalid_target", "the resource is not the one the authorization was granted for")
        }
        return requested
    }
}
#endif
