package import AuthFlow
import Foundation

/// The ``AuthFlowError``s of a web-authentication session. Only a user who
/// closed the sheet (or a cancelled task) is `cancelled`; everything that a
/// developer must fix is `configuration`, keeps the system's error and says
/// what is missing — the documented SwiftUI pattern hides `cancelled`, so a
/// configuration failure reported as one would make "Sign in" do nothing.
package enum WebAuthenticationErrors {
    /// The error for a session that ended with `ending`, waiting for `callback`.
    package static func error(_ ending: WebAuthenticationEnding, callback: CallbackMatch) -> AuthFlowError {
        switch ending {
        case .canceledLogin(let error):
            return AuthFlowError(.cancelled, "the user closed the browser session", underlyingError: error)
        case .presentationContextNotProvided(let error), .presentationContextInvalid(let error):
            return AuthFlowError(
                .configuration, "the browser session has no window to present from",
                recovery:
                    "Give the user agent the presentation anchor of a window in a foreground scene (or use SwiftUI's webAuthenticationSession).",
                underlyingError: error)
        case .other(let error) where error is CancellationError:
            // SwiftUI's async session throws this when the calling task is cancelled.
            return taskCancelled
        case .other(let error):
            return AuthFlowError(
                .configuration, "the system refused the browser session",
                recovery: recovery(for: callback), underlyingError: error)
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

    /// The error for a cancelled task: the caller gets it at once, whether or
    /// not the system ever calls back.
    package static let taskCancelled = AuthFlowError(.cancelled, "the sign-in task was cancelled")

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
