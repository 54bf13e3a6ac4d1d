import AuthFlow
import Foundation

@testable import AuthFlowApple

/// A behavioural stand-in for `ASWebAuthenticationSession`: it does what
/// Apple documents and what devices were seen to do, as a script.
@MainActor
final class ScriptedWebAuthenticationSession: WebAuthenticationDriver {
    /// What happens when the session starts, and when it is cancelled.
    enum Script {
        /// `start()` returns true; the completion handler gets `url` at once.
        case callback(URL)
        /// `start()` returns true; the handler is called twice (Auth0.swift #729, #950).
        case callbackTwice(URL, URL)
        /// `start()` returns true; the handler gets `error`.
        case failure(any Error)
        /// `start()` returns true; nothing is called until `cancel()`, which
        /// then calls the handler with `canceledLogin` (`late`) or never.
        case waitForCancel(callsBackAfterCancel: Bool)
        /// `start()` returns false (a cancelled session, no window); when
        /// `reportsError` the handler also gets `error`, as the system does
        /// for a missing presentation context.
        case startFails(reportsError: (any Error)?)
        /// `canStart` is false.
        case cannotStart
    }

    /// The error `cancel()` reports, like `ASWebAuthenticationSessionError.canceledLogin`.
    struct CanceledLogin: Error {}
    /// A presentation-context error, like `presentationContextNotProvided`.
    struct NoPresentationContext: Error {}
    /// An error the session classifies as something else (a missing association).
    struct Refused: Error, Equatable { let code: Int }

    let script: Script
    let completion: @Sendable (URL?, (any Error)?) -> Void
    private(set) var startCount = 0
    private(set) var cancelCount = 0

    init(_ script: Script, completion: @escaping @Sendable (URL?, (any Error)?) -> Void) {
        self.script = script
        self.completion = completion
    }

    var canStart: Bool {
        if case .cannotStart = script { return false }
        return true
    }

    func start() -> Bool {
        startCount += 1
        switch script {
        case .callback(let url): completion(url, nil)
        case .callbackTwice(let first, let second):
            completion(first, nil)
            completion(second, nil)
        case .failure(let error): completion(nil, error)
        case .waitForCancel: break
        case .startFails(let error):
            if let error { completion(nil, error) }
            return false
        case .cannotStart: return false
        }
        return true
    }

    func cancel() {
        cancelCount += 1
        if case .waitForCancel(true) = script { completion(nil, CanceledLogin()) }
    }

    /// How the Apple layer's classification sees this stand-in's errors.
    @Sendable nonisolated static func ending(_ error: any Error) -> WebAuthenticationEnding {
        switch error {
        case is CanceledLogin: .canceledLogin(error)
        case is NoPresentationContext: .presentationContextNotProvided(error)
        default: .other(error)
        }
    }
}
