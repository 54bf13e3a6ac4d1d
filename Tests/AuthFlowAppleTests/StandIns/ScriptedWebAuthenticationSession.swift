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

    /// The errors the system hands the completion handler, as `NSError`s
    /// in the shape Apple reports them (the classification under test reads
    /// nothing else). The domain is `ASWebAuthenticationSessionErrorDomain`
    /// as a device prints it: "Error Domain=com.apple.AuthenticationServices.WebAuthenticationSession Code=1"
    /// (simulator log quoted in strelov1/freehire pull request #1942).
    enum SystemError {
        static let domain = "com.apple.AuthenticationServices.WebAuthenticationSession"

        /// The user closed the sheet or declined the "wants to use … to sign
        /// in" alert: `canceledLogin` (code 1) with an empty `userInfo`
        /// (Apple, ASWebAuthenticationSession overview: "If the user cancels
        /// the alert, the session is canceled, and the completion handler is
        /// called with the error code canceledLogin"; Auth0.swift pull
        /// request #832 treats it as a cancel only when `userInfo` is empty).
        static func canceledLogin() -> NSError { NSError(domain: domain, code: 1, userInfo: [:]) }

        /// An https callback (iOS 17.4+) on a host without a `webcredentials`
        /// association: the same code 1, with the reason in `userInfo`, and the
        /// sheet never shows. Text from the simulator log in strelov1/freehire
        /// pull request #1942 ("Application with identifier … is not
        /// associated with domain …. Using HTTPS callbacks requires Associated
        /// Domains using the `webcredentials` service type for ….").
        static func webCredentialsMissing(appID: String = "ABCDE12345.com.example.app", host: String) -> NSError {
            NSError(
                domain: domain, code: 1,
                userInfo: [
                    NSLocalizedFailureReasonErrorKey:
                        "Application with identifier \(appID) is not associated with domain \(host). Using HTTPS callbacks requires Associated Domains using the `webcredentials` service type for \(host)."
                ])
        }

        /// `presentationContextNotProvided` (code 2): no provider was set
        /// (ASWebAuthenticationSessionError.Code documentation).
        static func presentationContextNotProvided() -> NSError { NSError(domain: domain, code: 2, userInfo: [:]) }

        /// `presentationContextInvalid` (code 3): the anchor could not
        /// present, as at launch before the scene is active
        /// (ASWebAuthenticationSessionError.Code documentation).
        static func presentationContextInvalid() -> NSError { NSError(domain: domain, code: 3, userInfo: [:]) }
    }

    /// An error from outside the framework's domain.
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
        if case .waitForCancel(true) = script { completion(nil, SystemError.canceledLogin()) }
    }
}
