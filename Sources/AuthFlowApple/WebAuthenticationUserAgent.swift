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
    /// The window (a main-actor class, so `Sendable`): `nonisolated` so that
    /// the nonisolated `presentationAnchor(for:)` can return it.
    nonisolated private let anchor: ASPresentationAnchor
    /// Whether to use a private browser session (no shared cookies, no SSO).
    public let prefersEphemeralSession: Bool

    /// Creates a user agent presenting from `anchor` (usually the key window).
    public init(anchor: ASPresentationAnchor, prefersEphemeralSession: Bool = false) {
        self.anchor = anchor
        self.prefersEphemeralSession = prefersEphemeralSession
    }

    /// Opens `url` in an `ASWebAuthenticationSession` and returns the
    /// callback.
    ///
    /// The caller is answered exactly once. Cancelling the calling task
    /// answers `cancelled` at once and closes the browser. A session that
    /// cannot start, has no window to present from, or that the system
    /// refuses (for an https callback, a missing `webcredentials`
    /// association) is a `configuration` error that keeps the system's error;
    /// only a user who closes the sheet is `cancelled`.
    public func present(_ url: URL, callback: CallbackMatch) async throws -> URL {
        let ephemeral = prefersEphemeralSession
        return try await runWebAuthentication(
            callback: callback,
            makeSession: { completion in
                let session = try Self.session(url: url, callback: callback, completion: completion)
                session.prefersEphemeralWebBrowserSession = ephemeral
                session.presentationContextProvider = self
                return session
            }, ending: WebAuthenticationFailure.ending)
    }

    /// The session for `callback`: `Callback` matching where the system has it
    /// (iOS 17.4, macOS 14.4, visionOS 1.1), the callback URL scheme before.
    private static func session(
        url: URL, callback: CallbackMatch,
        completion: @escaping @Sendable (URL?, (any Error)?) -> Void
    ) throws -> ASWebAuthenticationSession {
        if #available(iOS 17.4, macOS 14.4, visionOS 1.1, *) {
            switch callback {
            case .customScheme(let scheme):
                return ASWebAuthenticationSession(url: url, callback: .customScheme(scheme), completionHandler: completion)
            case .https(let host, let path):
                return ASWebAuthenticationSession(url: url, callback: .https(host: host, path: path), completionHandler: completion)
            }
        }
        guard case .customScheme(let scheme) = callback else { throw WebAuthenticationFailure.httpsCallbacksUnavailable }
        return ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
    }
}

extension ASWebAuthenticationSession: WebAuthenticationDriver {}

extension WebAuthenticationUserAgent: ASWebAuthenticationPresentationContextProviding {
    /// The window given at init.
    ///
    /// `nonisolated`: SDKs differ on the requirement's isolation (older ones
    /// declare it nonisolated, newer ones on the main actor); a nonisolated
    /// witness satisfies both without `@preconcurrency`, and reads only the
    /// immutable anchor.
    public nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { anchor }
}
#endif
