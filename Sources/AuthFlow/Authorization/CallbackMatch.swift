public import Foundation

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
}
