#if canImport(UIKit) && (os(iOS) || os(tvOS) || os(visionOS))
public import Foundation
public import UIKit

/// The system's ``UniversalLinkOpener`` on UIKit:
/// `open(_:options:completionHandler:)` with `universalLinksOnly`, which
/// "opens the URL only if the URL is a valid universal link and there is an
/// installed app capable of opening that URL", and reports false otherwise
/// (https://developer.apple.com/documentation/uikit/uiapplication/openexternalurloptionskey/universallinksonly).
///
/// Takes the application rather than reading `UIApplication.shared`, which
/// app extensions cannot use: an app passes `.shared`.
public struct SystemUniversalLinkOpener: UniversalLinkOpener {
    private let application: UIApplication

    /// An opener on `application` (normally `UIApplication.shared`).
    public init(application: UIApplication) {
        self.application = application
    }

    /// Opens `url` in the app that claims it; false when none does.
    public func openUniversalLink(_ url: URL) async -> Bool {
        await Self.open(url, in: application)
    }

    @MainActor private static func open(_ url: URL, in application: UIApplication) async -> Bool {
        await application.open(url, options: [.universalLinksOnly: true])
    }
}
#elseif canImport(AppKit) && os(macOS)
public import Foundation
import AppKit

/// The system's ``UniversalLinkOpener`` on macOS: `NSWorkspace` with
/// `OpenConfiguration.requiresUniversalLinks`, whose attempts "fail with an
/// error if the app isn't properly configured" or "if the user disabled
/// support for opening links with the specified app"
/// (https://developer.apple.com/documentation/appkit/nsworkspace/openconfiguration/requiresuniversallinks).
public struct SystemUniversalLinkOpener: UniversalLinkOpener {
    /// The opener of `NSWorkspace.shared`.
    public init() {}

    /// Opens `url` in the app that claims it; false when the system refuses.
    public func openUniversalLink(_ url: URL) async -> Bool {
        await Self.open(url)
    }

    @MainActor private static func open(_ url: URL) async -> Bool {
        let configuration = NSWorkspace.OpenConfiguration()
        configuration.requiresUniversalLinks = true
        do {
            _ = try await NSWorkspace.shared.open(url, configuration: configuration)
            return true
        } catch {
            return false
        }
    }
}
#endif
