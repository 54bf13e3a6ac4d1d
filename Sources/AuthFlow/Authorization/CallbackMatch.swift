#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How a platform web-authentication session recognises the redirect that
/// ends it. Derived from the redirect URI so that the Apple layer makes no
/// decision of its own.
public enum CallbackMatch: Sendable, Equatable {
    /// A private-use scheme, such as `com.example.app`.
    case customScheme(String)
    /// An https URL the app owns (a universal link), by host and path.
    case https(host: String, path: String)

    /// The match for `redirectURI`, which must pass ``RedirectURIPolicy``.
    /// Loopback http redirects belong to the loopback listener, not to a
    /// web-authentication session, and are refused here.
    public init(redirectURI: URL) throws {
        try RedirectURIPolicy.validate(redirectURI)
        let scheme = redirectURI.scheme?.lowercased() ?? ""
        switch scheme {
        case "https":
            let path = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)?.path ?? ""
            self = .https(host: redirectURI.host ?? "", path: path.isEmpty ? "/" : path)
        case "http":
            throw AuthFlowError.configuration("loopback redirect URIs are for the loopback listener, not a web-authentication session")
        default:
            self = .customScheme(scheme)
        }
    }

    /// Whether `url` is this callback: the same private-use scheme, or an
    /// https URL with this host (case-insensitive) and exactly this path, as
    /// `ASWebAuthenticationSession.Callback` matches them. Query and
    /// fragment are not compared (they carry the answer).
    public func matches(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased() ?? ""
        switch self {
        case .customScheme(let own):
            return scheme == own
        case .https(let host, let path):
            guard scheme == "https", url.host?.lowercased() == host.lowercased() else { return false }
            let received = URLComponents(url: url, resolvingAgainstBaseURL: false)?.path ?? ""
            return (received.isEmpty ? "/" : received) == path
        }
    }
}
