#if canImport(AuthenticationServices) && !os(watchOS)
import AuthFlow
import AuthenticationServices
import Foundation

/// An ``AuthorizationUserAgent`` on `ASWebAuthenticationSession`: the system
/// browser, sharing cookies with Safari (single sign-on) unless
/// ``prefersEphemeralSession``.
///
/// It only carries URLs. Which callback to wait for comes from
/// ``CallbackMatch`` and the callback is validated by the engine
/// (``AuthorizationRequest/validateCallback(_:)``), so this shell makes no
/// security decision of its own.
///
/// ```swift
/// let agent = WebAuthenticationUserAgent(anchor: view.window!)
/// let credentials = try await client.signIn(redirectURI: redirect, scopes: ["openid"], userAgent: agent)
/// ```
@available(iOS 16.0, macOS 13.0, tvOS 16.0, visionOS 1.0, *)
@MainActor
public final class WebAuthenticationUserAgent: NSObject, AuthorizationUserAgent {
    private let anchor: ASPresentationAnchor
    private var session: ASWebAuthenticationSession?
    /// Whether to use a private browser session (no shared cookies, no SSO).
    public let prefersEphemeralSession: Bool

    /// Creates a user agent presenting from `anchor` (usually the key window).
    public init(anchor: ASPresentationAnchor, prefersEphemeralSession: Bool = false) {
        self.anchor = anchor
        self.prefersEphemeralSession = prefersEphemeralSession
    }

    /// Opens `request.url` and returns the callback URL; a user who closes
    /// the sheet gets ``AuthFlowError/Category/cancelled``.
    public func authorize(_ request: AuthorizationRequest) async throws -> URL {
        let match = try CallbackMatch(redirectURI: request.redirectURI)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                start(url: request.url, match: match, continuation: continuation)
            }
        } onCancel: {
            Task { @MainActor in self.session?.cancel() }
        }
    }

    private func start(url: URL, match: CallbackMatch, continuation: CheckedContinuation<URL, any Error>) {
        let completion: @Sendable (URL?, (any Error)?) -> Void = { callback, error in
            if let callback {
                continuation.resume(returning: callback)
            } else if let error = error as? ASWebAuthenticationSessionError, error.code == .canceledLogin {
                continuation.resume(throwing: AuthFlowError(.cancelled, "the user cancelled sign-in"))
            } else {
                continuation.resume(throwing: AuthFlowError(.cancelled, "the browser session ended without a callback"))
            }
        }
        let session: ASWebAuthenticationSession
        switch match {
        case .customScheme(let scheme):
            session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
        case .https(let host, let path):
            guard #available(iOS 17.4, macOS 14.4, tvOS 17.4, visionOS 1.1, *) else {
                continuation.resume(throwing: AuthFlowError(.configuration, "https redirect URIs need iOS 17.4 or macOS 14.4"))
                return
            }
            session = ASWebAuthenticationSession(url: url, callback: .https(host: host, path: path), completionHandler: completion)
        }
        session.prefersEphemeralWebBrowserSession = prefersEphemeralSession
        session.presentationContextProvider = self
        self.session = session
        if !session.start() {
            continuation.resume(throwing: AuthFlowError(.configuration, "the web authentication session could not start"))
        }
    }
}

@available(iOS 16.0, macOS 13.0, tvOS 16.0, visionOS 1.0, *)
extension WebAuthenticationUserAgent: @preconcurrency ASWebAuthenticationPresentationContextProviding {
    public func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { anchor }
}
#endif
