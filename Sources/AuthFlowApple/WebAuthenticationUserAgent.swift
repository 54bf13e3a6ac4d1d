#if os(iOS) || os(macOS) || os(visionOS)
public import AuthFlow
public import AuthenticationServices
public import Foundation

/// A ``WebAuthenticationPresenter`` on `ASWebAuthenticationSession`,
/// presented from a window (UIKit and AppKit apps). SwiftUI views use
/// ``SwiftUIWebAuthenticationUserAgent`` instead and need no window.
///
/// It only carries URLs. Which callback to wait for comes from
/// ``CallbackMatch`` and the callback is validated by the engine
/// (``AuthorizationRequest/validateCallback(_:)``), so this shell makes no
/// security decision of its own.
///
/// ```swift
/// let agent = WebAuthenticationUserAgent(anchor: view.window!)
/// let session = try await signIn.signIn(using: agent)
/// ```
@MainActor
public final class WebAuthenticationUserAgent: NSObject, WebAuthenticationPresenter {
    private let anchor: ASPresentationAnchor
    private var session: ASWebAuthenticationSession?
    /// Whether to use a private browser session (no shared cookies, no SSO).
    public let prefersEphemeralSession: Bool

    /// Creates a user agent presenting from `anchor` (usually the key window).
    public init(anchor: ASPresentationAnchor, prefersEphemeralSession: Bool = false) {
        self.anchor = anchor
        self.prefersEphemeralSession = prefersEphemeralSession
    }

    /// Opens `url` in an `ASWebAuthenticationSession` and returns the
    /// callback; cancelling the calling task closes the browser.
    public func present(_ url: URL, callback: CallbackMatch) async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                start(url: url, match: callback, continuation: continuation)
            }
        } onCancel: {
            Task { @MainActor in self.session?.cancel() }
        }
    }

    private func start(url: URL, match: CallbackMatch, continuation: CheckedContinuation<URL, any Error>) {
        let completion: @Sendable (URL?, (any Error)?) -> Void = { callback, error in
            if let callback {
                continuation.resume(returning: callback)
            } else {
                continuation.resume(throwing: WebAuthenticationFailure.error(error ?? AuthFlowError(.cancelled, "no callback")))
            }
        }
        let session: ASWebAuthenticationSession
        switch match {
        case .customScheme(let scheme):
            session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
        case .https(let host, let path):
            guard #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) else {
                continuation.resume(throwing: WebAuthenticationFailure.httpsCallbacksUnavailable)
                return
            }
            session = ASWebAuthenticationSession(url: url, callback: .https(host: host, path: path), completionHandler: completion)
        }
        session.prefersEphemeralWebBrowserSession = prefersEphemeralSession
        session.presentationContextProvider = self
        self.session = session
        if !session.start() {
            continuation.resume(throwing: AuthFlowError(.configuration, "the web authentication session could not start",
                                                        recovery: "Start sign-in from a window in a foreground scene."))
        }
    }
}

extension WebAuthenticationUserAgent: ASWebAuthenticationPresentationContextProviding {
    /// The window given at init.
    public func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { anchor }
}
#endif
