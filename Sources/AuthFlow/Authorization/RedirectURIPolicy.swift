#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The redirect URIs a native app may use (RFC 8252 §7):
///
/// - a private-use URI scheme in reverse-DNS form, such as
///   `com.example.app:/oauth2redirect` (§7.1) — `myapp://cb` is refused,
///   because a scheme without a domain can be claimed by any other app;
/// - an `https` URI the app owns (§7.2; a universal link);
/// - `http` on a loopback host for desktop apps and tools (§7.3), where
///   `127.0.0.1` or `[::1]` are preferred over `localhost` (§8.3).
public enum RedirectURIPolicy {
    /// Checks `uri`; throws ``AuthFlowError/Category/configuration`` naming the rule it breaks.
    public static func validate(_ uri: URL) throws {
        guard let scheme = uri.scheme?.lowercased(), !scheme.isEmpty else {
            throw AuthFlowError.configuration("the redirect URI has no scheme")
        }
        guard uri.fragment == nil else { throw AuthFlowError.configuration("the redirect URI must not have a fragment") }
        switch scheme {
        case "https":
            guard uri.host?.isEmpty == false else { throw AuthFlowError.configuration("the https redirect URI has no host") }
        case "http":
            guard URLPolicy.isLoopback(uri) else {
                throw AuthFlowError.configuration(
                    "an http redirect URI must be a loopback address such as http://127.0.0.1/callback (RFC 8252 §7.3)")
            }
        default:
            let labels = scheme.split(separator: ".", omittingEmptySubsequences: false)
            guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }) else {
                throw AuthFlowError.configuration(
                    "the redirect URI scheme \(scheme) must be reverse-DNS, such as com.example.app (RFC 8252 §7.1)")
            }
        }
    }
}
