/// What the Apple layer uses of one `ASWebAuthenticationSession`: the seam
/// at the framework boundary, so that the rules of running a session (one
/// answer, prompt cancellation, errors by cause) run on every platform
/// against behavioural stand-ins.
@MainActor
package protocol WebAuthenticationDriver: AnyObject {
    /// Whether the session can begin (`canStart`).
    var canStart: Bool { get }
    /// Starts the session (`start()`); false when it could not.
    func start() -> Bool
    /// Cancels the session (`cancel()`). Apple does not promise that the
    /// completion handler is then called.
    func cancel()
}

/// How a web-authentication session ended without a callback URL, as the
/// framework reports it (`ASWebAuthenticationSessionError.Code`, or another
/// error), so the classification is plain Swift.
package enum WebAuthenticationEnding: Sendable {
    /// The user closed the sheet (`canceledLogin` with an empty `userInfo`).
    case canceledLogin(any Error)
    /// `canceledLogin` carrying a failure reason in `userInfo`: the system
    /// refused the session before the user saw it. On iOS 17.4 and later an
    /// https callback on a host without a `webcredentials` association ends
    /// this way ("Using HTTPS callbacks requires Associated Domains using the
    /// `webcredentials` service type"), with the reason kept here.
    case refusedBySystem(any Error, reason: String?)
    /// No presentation context provider was set (`presentationContextNotProvided`).
    case presentationContextNotProvided(any Error)
    /// The presentation anchor was unusable (`presentationContextInvalid`),
    /// as at launch before a window is key: transient.
    case presentationContextInvalid(any Error)
    /// Any other error.
    case other(any Error)
    /// The completion handler was called with neither a URL nor an error.
    case nothing
}
