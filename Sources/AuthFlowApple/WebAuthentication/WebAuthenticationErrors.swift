package import AuthFlow
import Foundation

/// The ``AuthFlowError``s of a web-authentication session. Only a user who
/// closed the sheet (`canceledLogin` with an empty `userInfo`), a cancelled
/// task, or a second sheet asked for while one is on screen is `cancelled`;
/// a window not ready to present from is a transient `timeout`; everything
/// that a developer must fix — `canceledLogin` carrying a failure reason
/// included — is `configuration`, keeps the system's error and says what is
/// missing. The documented SwiftUI pattern hides `cancelled`, so a
/// configuration failure reported as one would make "Sign in" do nothing.
package enum WebAuthenticationErrors {
    /// The error for a session that ended with `ending`, waiting for `callback`.
    package static func error(_ ending: WebAuthenticationEnding, callback: CallbackMatch) -> AuthFlowError {
        switch ending {
        case .canceledLogin(let error):
            return AuthFlowError(.cancelled, "the user closed the browser session", underlyingError: error)
        case .refusedBySystem(let error, let reason):
            return AuthFlowError(
                .configuration, "the system refused the browser session" + (reason.map { ": \($0)" } ?? ""),
                recovery: recovery(for: callback), remedy: remedy(for: callback), underlyingError: error)
        case .presentationContextNotProvided(let error):
            return AuthFlowError(
                .configuration, "the browser session has no window to present from",
                recovery:
                    "Give the user agent the presentation anchor of a window in a foreground scene (or use SwiftUI's webAuthenticationSession).",
                underlyingError: error)
        case .presentationContextInvalid(let error):
            // Transient: at launch, or while the scene is not yet active, the
            // anchor cannot present; the same call succeeds a moment later.
            return AuthFlowError(
                .timeout, "the window was not ready to present the browser session",
                recovery: "Try again once the app's scene is active.", remedy: .presentWhenTheSceneIsActive,
                underlyingError: error)
        case .other(let error) where error is CancellationError:
            // SwiftUI's async session throws this when the calling task is cancelled.
            return taskCancelled
        case .other(let error):
            return AuthFlowError(
                .configuration, "the system refused the browser session",
                recovery: recovery(for: callback), remedy: remedy(for: callback), underlyingError: error)
        case .nothing:
            return AuthFlowError(
                .configuration, "the browser session ended without a callback or an error",
                recovery: recovery(for: callback))
        }
    }

    /// The error when the session cannot start (`canStart` false, or `start()` returned false).
    package static func cannotStart(callback: CallbackMatch) -> AuthFlowError {
        AuthFlowError(
            .configuration, "the web authentication session could not start",
            recovery: "Start sign-in from a window in a foreground scene, with a presentation anchor. " + recovery(for: callback))
    }

    /// The error for a second browser session while one is on screen (a
    /// double tap on "Sign in"): the first one goes on; this one never opens.
    package static let alreadyInProgress = AuthFlowError(
        .cancelled, "a sign-in is already in progress",
        recovery: "Wait for the browser session on screen to finish; disable the sign-in button while one runs.",
        remedy: .waitForTheSignInInProgress)

    /// The error for a cancelled task: the caller gets it at once, whether or
    /// not the system ever calls back.
    package static let taskCancelled = AuthFlowError(.cancelled, "the sign-in task was cancelled")

    /// The remedy naming the association to check, for an https callback.
    static func remedy(for callback: CallbackMatch) -> AuthFlowError.Remedy? {
        guard case .https(let host, _) = callback else { return nil }
        return .checkTheWebCredentialsAssociation.with(host)
    }

    /// What to check for `callback`: the association for https, the URL scheme otherwise.
    static func recovery(for callback: CallbackMatch) -> String {
        switch callback {
        case .https(let host, _):
            return
                "Add webcredentials:\(host) to the Associated Domains entitlement and serve an apple-app-site-association file naming the app at https://\(host)/.well-known/apple-app-site-association."
        case .customScheme(let scheme):
            return "Check that the redirect URI's scheme \(scheme) is the one registered with the provider."
        }
    }
}
