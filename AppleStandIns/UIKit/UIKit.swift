// The UIKit declarations the Apple layer and the example app use, from
// Apple's documented Swift declarations (isolation and availability included).
import Foundation

/// https://developer.apple.com/documentation/uikit/uiresponder
@available(iOS 2.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIResponder: NSObject {}

/// https://developer.apple.com/documentation/uikit/uiview
@available(iOS 2.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIView: UIResponder {}

/// https://developer.apple.com/documentation/uikit/uiwindow
@available(iOS 2.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIWindow: UIView {}

/// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier
@available(iOS 4.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/invalid
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

/// https://developer.apple.com/documentation/uikit/uiapplication
@available(iOS 2.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
@MainActor open class UIApplication: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    @available(iOSApplicationExtension, unavailable)
    @available(macCatalystApplicationExtension, unavailable)
    @available(tvOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    open class var shared: UIApplication { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(withname:expirationhandler:)
    @available(iOS 7.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
    nonisolated open func beginBackgroundTask(
        withName taskName: String?, expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil
    ) -> UIBackgroundTaskIdentifier { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/endbackgroundtask(_:)
    @available(iOS 4.0, macCatalyst 13.1, tvOS 9.0, visionOS 1.0, *)
    nonisolated open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) { fatalError("stand-in") }

    /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey
    public struct OpenExternalURLOptionsKey: Hashable, RawRepresentable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey/universallinksonly
        /// "the method opens the URL only if the URL is a valid universal link
        /// and there is an installed app capable of opening that URL".
        @available(iOS 10.0, macCatalyst 13.1, tvOS 10.0, visionOS 1.0, *)
        public static let universalLinksOnly = OpenExternalURLOptionsKey(rawValue: "UIApplicationOpenURLOptionUniversalLinksOnly")
    }

    /// https://developer.apple.com/documentation/uikit/uiapplication/open(_:options:completionhandler:)
    /// (the completion handler runs on the main thread with `success`).
    @available(iOS 10.0, macCatalyst 13.1, tvOS 10.0, visionOS 1.0, *)
    @available(iOSApplicationExtension, unavailable)
    @available(macCatalystApplicationExtension, unavailable)
    @available(tvOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    open func open(
        _ url: URL, options: [OpenExternalURLOptionsKey: Any] = [:],
        completionHandler completion: (@MainActor @Sendable (Bool) -> Void)? = nil
    ) { fatalError("stand-in") }

    /// The async form Swift imports of `open(_:options:completionHandler:)`.
    @available(iOS 10.0, macCatalyst 13.1, tvOS 10.0, visionOS 1.0, *)
    @available(iOSApplicationExtension, unavailable)
    @available(macCatalystApplicationExtension, unavailable)
    @available(tvOSApplicationExtension, unavailable)
    @available(visionOSApplicationExtension, unavailable)
    open func open(_ url: URL, options: [OpenExternalURLOptionsKey: Any] = [:]) async -> Bool { fatalError("stand-in") }
}
