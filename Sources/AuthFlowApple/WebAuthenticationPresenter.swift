#if os(iOS) || os(macOS) || os(visionOS)
public import AuthFlow
import AuthenticationServices
public import Foundation

/// A system browser session that opens a URL and returns the redirect that
/// ends it: ``WebAuthenticationUserAgent`` (UIKit/AppKit, from a window) and
/// ``SwiftUIWebAuthenticationUserAgent`` (SwiftUI's
/// `webAuthenticationSession`). Sign-in opens the authorization URL and
/// sign-out the provider's end-session page, each in the same kind of
/// browser session (ephemeral or shared).
///
/// Offered where Apple offers web authentication with a presentation
/// context: iOS, iPadOS, Mac Catalyst, macOS and visionOS. tvOS and watchOS
/// sign in with the device authorization grant instead.
public protocol WebAuthenticationPresenter: AuthorizationUserAgent {
    /// Whether the browser session is private (no shared cookies, no single sign-on).
    var prefersEphemeralSession: Bool { get }
    /// Opens `url` and returns the first URL the browser is redirected to
    /// that `callback` matches. A user who closes the sheet gets a
    /// `cancelled` error.
    func present(_ url: URL, callback: CallbackMatch) async throws -> URL
}

extension WebAuthenticationPresenter {
    /// Opens the authorization URL and waits for its redirect URI.
    public func authorize(_ request: AuthorizationRequest) async throws -> URL {
        try await present(request.url, callback: CallbackMatch(redirectURI: request.redirectURI))
    }
}

/// The errors of a web-authentication session, as ``AuthFlowError``s.
enum WebAuthenticationFailure {
    /// How the framework's `error` ended the session: read from the bridged
    /// `NSError` (domain `ASWebAuthenticationSessionErrorDomain`, code,
    /// `userInfo`), where a `canceledLogin` with a failure reason is told
    /// apart from a user closing the sheet (``WebAuthenticationEnding/init(_:)``).
    @Sendable static func ending(_ error: any Error) -> WebAuthenticationEnding {
        WebAuthenticationEnding(error)
    }

    /// The error of a session that ended with `error` waiting for `callback`.
    static func error(_ error: any Error, callback: CallbackMatch) -> AuthFlowError {
        if let error = error as? AuthFlowError { return error }
        return WebAuthenticationErrors.error(ending(error), callback: callback)
    }

    /// The error for an https callback where the system cannot match one.
    static let httpsCallbacksUnavailable = AuthFlowError(
        .configuration, "https redirect URIs need iOS 17.4, macOS 14.4 or visionOS 1.1",
        recovery:
            "Register a custom-scheme redirect URI with the provider and set it as FallbackRedirectURI in the AuthFlow Info.plist dictionary."
    )

    /// Whether this system delivers https callbacks to a web-authentication session.
    static var httpsCallbacksAvailable: Bool {
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) { return true }
        return false
    }
}
#endif
