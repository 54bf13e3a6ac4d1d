public import Foundation

/// Opens a URL only as a universal link: in the app that claims it, never in
/// a browser. The system's is `SystemUniversalLinkOpener` (UIKit's
/// `open(_:options:completionHandler:)` with `universalLinksOnly`, AppKit's
/// `NSWorkspace.OpenConfiguration.requiresUniversalLinks`).
public protocol UniversalLinkOpener: Sendable {
    /// Opens `url` in the app that claims it; false when no installed app
    /// does, or the user turned universal links off for it.
    func openUniversalLink(_ url: URL) async -> Bool
}
