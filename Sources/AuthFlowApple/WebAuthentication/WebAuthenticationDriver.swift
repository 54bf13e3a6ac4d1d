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
    /// The user closed the sheet (`canceledLogin`).
    case canceledLogin(any Error)
    /// No presentation context provider was set (`presentationContextNotProvided`).
    case presentationContextNotProvided(any Error)
    /// The presentation anchor was unusable (`presentationContextInvalid`).
    case presentationContextInvalid(any Error)
    /// Any other error: on iOS 17.4 and later, for example, an https callback
    /// whose host has no `webcredentials` association with the app.
    case other(any Error)
    /// The completion handler was called with neither a URL nor an error.
    case nothing
}
