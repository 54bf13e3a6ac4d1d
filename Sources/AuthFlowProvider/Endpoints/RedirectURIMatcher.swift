#if EmbeddedProvider // the EmbeddedProvider package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Redirect URI matching: exact string comparison, except that a registered
/// `http://127.0.0.1/…` or `http://[::1]/…` URI without a port accepts any
/// port (RFC 8252 §7.3), everything else still equal.
enum RedirectURIMatcher {
    static func matches(_ requested: String, registered: [String]) -> Bool {
        registered.contains { matches(requested, registered: $0) }
    }

    static func matches(_ requested: String, registered: String) -> Bool {
        if requested == registered { return true }
        guard var pattern = URLComponents(string: registered), var candidate = URLComponents(string: requested),
            pattern.scheme == "http", pattern.port == nil, candidate.scheme == "http",
            candidate.port != nil, isLoopbackIP(pattern.host)
        else { return false }
        pattern.port = nil
        candidate.port = nil
        return pattern.string == candidate.string && pattern.host == candidate.host
    }

    private static func isLoopbackIP(_ host: String?) -> Bool {
        host == "127.0.0.1" || host == "[::1]" || host == "::1"
    }
}
#endif
