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
    static func error(_ error: any Error) -> AuthFlowError {
        if let error = error as? AuthFlowError { return error }
        guard let sessionError = error as? ASWebAuthenticationSessionError else {
            return AuthFlowError(.cancelled, "the browser session ended without a callback")
        }
        switch sessionError.code {
        case .canceledLogin:
            return AuthFlowError(.cancelled, "the user closed the browser session", underlyingError: sessionError)
        case .presentationContextNotProvided, .presentationContextInvalid:
            return AuthFlowError(.configuration, "the browser session has no window to present from",
                                 recovery: "Present from a window in a foreground scene (or use SwiftUI's webAuthenticationSession).",
                                 underlyingError: sessionError)
        @unknown default:
            return AuthFlowError(.cancelled, "the browser session ended without a callback", underlyingError: sessionError)
        }
    }

    /// The error for an https callback where the system cannot match one.
    static let httpsCallbacksUnavailable = AuthFlowError(
        .configuration, "https redirect URIs need iOS 17.4, macOS 14.4 or visionOS 1.1",
        recovery: "Register a custom-scheme redirect URI with the provider and set it as FallbackRedirectURI in the AuthFlow Info.plist dictionary.")

    /// Whether this system delivers https callbacks to a web-authentication session.
    static var httpsCallbacksAvailable: Bool {
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) { return true }
        return false
    }
}
#endif
