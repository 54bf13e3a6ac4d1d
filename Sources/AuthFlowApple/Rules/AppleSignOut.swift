public import AuthFlow
package import Foundation

/// What ``AppleSignIn``'s sign-out did: the local sign-out, which always
/// completed when this is returned, and the browser step beside it.
public struct AppleSignOutResult: Sendable {
    /// What happened to the browser step that ends the provider's session.
    public enum BrowserStep: Sendable, Equatable {
        /// The end-session page opened and returned to the post-logout redirect URI.
        case completed
        /// The user closed the end-session page; the app is signed out all the same.
        case closedByUser
        /// Not run: the provider has no end-session endpoint.
        case skippedNoEndSessionEndpoint
        /// Not run: no `PostLogoutRedirectURI` is configured, so the page
        /// could never return to the app.
        case skippedNoPostLogoutRedirectURI
        /// Not run: sign-in uses an ephemeral browser session, which keeps
        /// no provider cookies to end.
        case skippedEphemeralSession
        /// Run, and failed with ``AppleSignOutResult/browserFailure``.
        case failed
    }

    /// The engine's sign-out: revocation failures and the end-session URL.
    public let local: SignOutResult
    /// The browser step.
    public let browserStep: BrowserStep
    /// Why the browser step failed, when it did. The local sign-out is complete regardless.
    public let browserFailure: AuthFlowError?
    /// Why the Secure Enclave DPoP key handle could not be deleted, if it
    /// could not: the session is gone, and the next sign-in replaces the handle.
    public let keyHandleFailure: AuthFlowError?
}

/// The rules of signing out in the sheet, plain Swift so they run everywhere:
/// the local sign-out always completes and is reported as done; the browser
/// step runs only when it can finish (an end-session endpoint, a
/// post-logout redirect URI, a shared browser session); its failure is
/// reported beside the completed sign-out, never thrown.
package enum AppleSignOutSteps {
    /// Whether and why not to open the end-session page.
    package static func browserStep(
        endSessionURL: URL?, postLogoutRedirectURI: URL?,
        prefersEphemeralSession: Bool
    ) -> AppleSignOutResult.BrowserStep? {
        if endSessionURL == nil { return .skippedNoEndSessionEndpoint }
        if postLogoutRedirectURI == nil { return .skippedNoPostLogoutRedirectURI }
        if prefersEphemeralSession { return .skippedEphemeralSession }
        return nil
    }

    /// Runs the sign-out. Throws only what `localSignOut` throws (the
    /// credentials could not be deleted: the user is not signed out).
    package static func run(
        postLogoutRedirectURI: URL?, prefersEphemeralSession: Bool,
        localSignOut: () async throws -> SignOutResult,
        deleteKeyHandle: () async throws -> Void,
        present: (URL, CallbackMatch) async throws -> URL
    ) async throws -> AppleSignOutResult {
        let local = try await localSignOut()
        var keyHandleFailure: AuthFlowError?
        do {
            try await deleteKeyHandle()
        } catch {
            keyHandleFailure =
                error as? AuthFlowError
                ?? AuthFlowError(.storage, "the Secure Enclave DPoP key handle could not be deleted", underlyingError: error)
        }
        func result(_ step: AppleSignOutResult.BrowserStep, _ failure: AuthFlowError? = nil) -> AppleSignOutResult {
            AppleSignOutResult(local: local, browserStep: step, browserFailure: failure, keyHandleFailure: keyHandleFailure)
        }
        if let skipped = browserStep(
            endSessionURL: local.endSessionURL, postLogoutRedirectURI: postLogoutRedirectURI,
            prefersEphemeralSession: prefersEphemeralSession)
        {
            return result(skipped)
        }
        guard let endSession = local.endSessionURL, let returnURI = postLogoutRedirectURI else {
            return result(.skippedNoEndSessionEndpoint)
        }
        do {
            _ = try await present(endSession, try CallbackMatch(redirectURI: returnURI))
            return result(.completed)
        } catch let error as AuthFlowError where error.category == .cancelled && error.remedy != .waitForTheSignInInProgress {
            return result(.closedByUser)
        } catch {
            return result(
                .failed,
                error as? AuthFlowError
                    ?? AuthFlowError(
                        .configuration, "the end-session page could not be shown",
                        underlyingError: error))
        }
    }
}
