#if canImport(UIKit) && (os(iOS) || os(tvOS) || os(visionOS))
import AuthFlow
import Foundation
public import UIKit

/// A ``BackgroundExecutionHost`` on `UIApplication` background tasks, so a
/// token refresh in flight continues when the app moves to the background
/// (``AuthSession/freshAccessToken(continuingIn:)``).
///
/// Takes the application rather than reading `UIApplication.shared`, which
/// app extensions cannot use: an app passes `UIApplication.shared`, an
/// extension does without background time.
@MainActor
public final class ApplicationBackgroundHost: BackgroundExecutionHost {
    private let application: UIApplication

    /// A host on `application` (normally `UIApplication.shared`).
    public init(application: UIApplication) {
        self.application = application
    }

    /// Begins a background task; the system's expiration handler runs the
    /// engine's expiration rule and ends the task when the rule says so.
    public func beginActivity(named name: String, expiration: @escaping @Sendable () -> Bool) async -> BackgroundActivityID? {
        let application = application
        let ending = BackgroundTaskEnding<UIBackgroundTaskIdentifier> { application.endBackgroundTask($0) }
        let identifier = application.beginBackgroundTask(withName: name) {
            if expiration() { ending.expire() }
        }
        guard identifier != .invalid else { return nil }
        ending.began(identifier)
        return BackgroundActivityID(rawValue: identifier.rawValue)
    }

    /// Ends a background task that finished in time.
    public func endActivity(_ id: BackgroundActivityID) async {
        application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: id.rawValue))
    }
}
#endif
