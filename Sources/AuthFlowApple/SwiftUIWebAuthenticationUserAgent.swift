#if canImport(SwiftUI) && (os(iOS) || os(macOS) || os(visionOS))
public import AuthFlow
public import AuthenticationServices
public import Foundation
public import SwiftUI

/// A ``WebAuthenticationPresenter`` on SwiftUI's `WebAuthenticationSession`
/// (`@Environment(\.webAuthenticationSession)`): a view signs in and out
/// without a window.
///
/// ```swift
/// struct SignInButton: View {
///     @Environment(\.webAuthenticationSession) private var webAuthenticationSession
///     let model: SessionModel
///     var body: some View {
///         Button("Sign in") { Task { try await model.signIn(using: webAuthenticationSession) } }
///     }
/// }
/// ```
@available(iOS 16.4, macOS 13.3, visionOS 1.0, *)
@MainActor
public final class SwiftUIWebAuthenticationUserAgent: WebAuthenticationPresenter {
    private let session: WebAuthenticationSession
    /// Whether to use a private browser session (no shared cookies, no SSO).
    public let prefersEphemeralSession: Bool

    /// A user agent on `session`, the view's `webAuthenticationSession`.
    public init(_ session: WebAuthenticationSession, prefersEphemeralSession: Bool = false) {
        self.session = session
        self.prefersEphemeralSession = prefersEphemeralSession
    }

    /// Opens `url` and returns the callback `callback` matches.
    public func present(_ url: URL, callback: CallbackMatch) async throws -> URL {
        let browser: WebAuthenticationSession.BrowserSession = prefersEphemeralSession ? .ephemeral : .shared
        return try await WebAuthenticationGate.shared.run {
            try await authenticate(url, callback: callback, browser: browser)
        }
    }

    private func authenticate(_ url: URL, callback: CallbackMatch, browser: WebAuthenticationSession.BrowserSession) async throws -> URL {
        do {
            switch callback {
            case .customScheme(let scheme):
                return try await session.authenticate(using: url, callbackURLScheme: scheme, preferredBrowserSession: browser)
            case .https(let host, let path):
                guard #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) else {
                    throw WebAuthenticationFailure.httpsCallbacksUnavailable
                }
                return try await session.authenticate(
                    using: url, callback: .https(host: host, path: path),
                    preferredBrowserSession: browser, additionalHeaderFields: [:])
            }
        } catch {
            throw WebAuthenticationFailure.error(error, callback: callback)
        }
    }
}
#endif
