import AuthFlow
public import Foundation

/// Which redirect URI a sign-in on an Apple platform uses: an https
/// (universal link) redirect where the system can deliver it to a
/// web-authentication session, a registered custom-scheme redirect before
/// that.
///
/// `ASWebAuthenticationSession` matches https callbacks from iOS 17.4,
/// macOS 14.4 and visionOS 1.1 on. Register both redirect URIs with the
/// provider; the Apple layer asks the system which one it can use and this
/// type makes the choice, so the rule is the same on every platform and is
/// tested without one.
public struct RedirectChoice: Sendable, Equatable {
    /// The https redirect URI, on a host associated with the app
    /// (`webcredentials` and `applinks` associated-domains entries).
    public let https: URL?
    /// The private-use (custom-scheme) redirect URI, such as
    /// `com.example.app:/oauth2redirect`.
    public let customScheme: URL?

    /// A choice between `https` and `customScheme`; at least one is
    /// required. Each must pass ``RedirectURIPolicy`` and be of its kind.
    public init(https: URL?, customScheme: URL?) throws {
        if let https {
            guard case .https = try CallbackMatch(redirectURI: https) else {
                throw AuthFlowError(
                    .configuration, "the https redirect URI \(https.absoluteString) is not an https URL",
                    recovery: "Give an https URL on a domain associated with the app as the https redirect URI.")
            }
        }
        if let customScheme {
            guard case .customScheme = try CallbackMatch(redirectURI: customScheme) else {
                throw AuthFlowError(
                    .configuration, "the fallback redirect URI \(customScheme.absoluteString) does not use a custom scheme",
                    recovery:
                        "Give a private-use scheme redirect URI (reverse domain name, such as com.example.app:/oauth2redirect) as the fallback."
                )
            }
        }
        guard https != nil || customScheme != nil else {
            throw AuthFlowError(
                .configuration, "no redirect URI is configured",
                recovery: "Set RedirectURI (and optionally FallbackRedirectURI) in the AuthFlow Info.plist dictionary.")
        }
        self.https = https
        self.customScheme = customScheme
    }

    /// The redirect URI to use: the https one when the system can match
    /// https callbacks (`httpsCallbacksAvailable`), otherwise the custom
    /// scheme. Without a custom scheme on an older system this is a
    /// `configuration` error naming the missing fallback.
    public func redirectURI(httpsCallbacksAvailable: Bool) throws -> URL {
        if httpsCallbacksAvailable, let https { return https }
        if let customScheme { return customScheme }
        throw AuthFlowError(
            .configuration, "https redirect URIs need iOS 17.4, macOS 14.4 or visionOS 1.1, and no custom-scheme fallback is configured",
            recovery:
                "Register a custom-scheme redirect URI with the provider and set it as FallbackRedirectURI in the AuthFlow Info.plist dictionary."
        )
    }
}
