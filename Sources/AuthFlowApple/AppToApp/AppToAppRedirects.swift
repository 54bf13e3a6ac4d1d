import AuthFlow
public import Foundation

/// Where the app hands the URLs it is opened with, so that an app-to-app
/// sign-in (``AppToAppUserAgent``) gets its redirect: the provider's app
/// ends the sign-in by opening the app's https redirect URI, a universal
/// link the app claims, which reaches the app like any other link.
///
/// Call ``handle(_:)`` from every entry point the system uses (SwiftUI's
/// `onOpenURL`, which receives universal links; `scene(_:continue:)` and
/// `application(_:continue:restorationHandler:)` with the user activity's
/// `webpageURL`; AppKit's `application(_:open:)`). It takes the URL only
/// when it is the redirect a sign-in waits for (same host and path as its
/// redirect URI) and returns false for everything else, which the app then
/// handles as usual. `state`, `iss` and the code exchange with PKCE are
/// checked by the engine afterwards, as for any redirect.
public final class AppToAppRedirects: Sendable {
    private struct State {
        var next: UInt64 = 0
        var expected: (id: UInt64, match: CallbackMatch)?
        var arrived: URL?
        var failure: AuthFlowError?
        var waiter: CheckedContinuation<URL, any Error>?
    }
    private let state = LockedValue(State())

    /// The app's one inbox, for apps that feed it from their entry points.
    public static let shared = AppToAppRedirects()

    /// A separate inbox (tests, apps with several scenes that sign in apart).
    public init() {}

    /// Takes `url` when it is the redirect the sign-in in progress waits
    /// for; false otherwise (no sign-in waits, or another link).
    @discardableResult
    public func handle(_ url: URL) -> Bool {
        let (taken, waiter) = state.withLock { state -> (Bool, CheckedContinuation<URL, any Error>?) in
            guard let expected = state.expected, state.arrived == nil, state.failure == nil, expected.match.matches(url) else {
                return (false, nil)
            }
            guard let waiter = state.waiter else {
                state.arrived = url
                return (true, nil)
            }
            state = State(next: state.next)
            return (true, waiter)
        }
        waiter?.resume(returning: url)
        return taken
    }

    /// Ends the sign-in in progress as cancelled (the app's Cancel button,
    /// or a user who came back without finishing in the provider's app).
    public func cancel() {
        fail(nil, AuthFlowError(.cancelled, "the sign-in in the provider's app was cancelled"))
    }

    /// Starts waiting for the redirect `match` recognises; before the link opens, so that a fast return is not missed.
    func expect(_ match: CallbackMatch) throws -> UInt64 {
        try state.withLock { state in
            guard state.expected == nil else { throw WebAuthenticationErrors.alreadyInProgress }
            state.next += 1
            state = State(next: state.next, expected: (state.next, match))
            return state.next
        }
    }

    /// The redirect of expectation `id`, or its failure.
    func redirect(_ id: UInt64) async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let ready = state.withLock { state -> Result<URL, any Error>? in
                    guard state.expected?.id == id else { return .failure(WebAuthenticationErrors.taskCancelled) }
                    if let url = state.arrived {
                        state = State(next: state.next)
                        return .success(url)
                    }
                    if let failure = state.failure {
                        state = State(next: state.next)
                        return .failure(failure)
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            fail(id, WebAuthenticationErrors.taskCancelled)
        }
    }

    /// Ends expectation `id` (any, when nil) with `error`.
    func fail(_ id: UInt64?, _ error: AuthFlowError) {
        let waiter = state.withLock { state -> CheckedContinuation<URL, any Error>? in
            guard let expected = state.expected, id == nil || expected.id == id else { return nil }
            guard let waiter = state.waiter else {
                if state.arrived == nil { state.failure = error }
                return nil
            }
            state = State(next: state.next)
            return waiter
        }
        waiter?.resume(throwing: error)
    }

    /// Stops expecting `id` without an answer (the link did not open).
    func abandon(_ id: UInt64) {
        state.withLock { state in
            if state.expected?.id == id { state = State(next: state.next) }
        }
    }
}
