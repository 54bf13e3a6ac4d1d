import AuthFlow
import AuthFlowApple
import Foundation

/// A behavioural stand-in for how the system routes universal links between
/// installed apps, from Apple's documentation:
///
/// - `open(_:options:completionHandler:)` with `universalLinksOnly` "opens
///   the URL only if the URL is a valid universal link and there is an
///   installed app capable of opening that URL"; otherwise the completion
///   handler gets false (UIApplication.OpenExternalURLOptionsKey.universalLinksOnly).
/// - A user can turn universal links off for an app (long-press, "Open in
///   Safari"); the system then opens its links in Safari, and a
///   universal-links-only open fails ("Attempts may also fail with an error
///   if the user disabled support for opening links with the specified
///   app", NSWorkspace.OpenConfiguration.requiresUniversalLinks).
/// - An app claims a link by the `applinks` service of its Associated
///   Domains and the host's apple-app-site-association file (paths); a link
///   no installed app claims opens in Safari, and no app hears of it
///   ("Supporting universal links in your app").
/// - The app that claims a link receives it after the opening app's call
///   returned (it is launched or brought forward), through `onOpenURL` or
///   `scene(_:continue:)`.
final class SystemUniversalLinks: Sendable {
    /// An installed app: the links it claims (host and path prefixes) and
    /// what it does with a link it receives.
    struct App: Sendable {
        let name: String
        let host: String
        let paths: [String]
        let receive: @Sendable (URL) async -> Void
    }

    private let apps = LockedApps()

    func install(_ app: App) { apps.add(app) }
    func disableUniversalLinks(of name: String) { apps.disable(name) }
    /// Links opened in Safari because no app claimed them.
    var openedInSafari: [URL] { apps.safari }

    /// The opener an app gets: universal links only.
    func opener() -> Opener { Opener(system: self) }

    /// What a universal-links-only open does.
    func openUniversalLinkOnly(_ url: URL) -> Bool {
        guard let app = apps.claimant(of: url) else { return false }
        Task { await app.receive(url) }
        return true
    }

    /// What a plain open of an https link does (the provider's app returning).
    func open(_ url: URL) {
        if let app = apps.claimant(of: url) {
            Task { await app.receive(url) }
        } else {
            apps.openInSafari(url)
        }
    }

    struct Opener: UniversalLinkOpener {
        let system: SystemUniversalLinks
        func openUniversalLink(_ url: URL) async -> Bool { system.openUniversalLinkOnly(url) }
    }
}

private final class LockedApps: Sendable {
    private struct State {
        var apps: [SystemUniversalLinks.App] = []
        var disabled: Set<String> = []
        var opened: [URL] = []
    }
    private let state = LockedValue(State())

    func add(_ app: SystemUniversalLinks.App) { state.withLock { $0.apps.append(app) } }
    func disable(_ name: String) { state.withLock { _ = $0.disabled.insert(name) } }
    func openInSafari(_ url: URL) { state.withLock { $0.opened.append(url) } }
    var safari: [URL] { state.withLock { $0.opened } }

    func claimant(of url: URL) -> SystemUniversalLinks.App? {
        state.withLock { state in
            guard url.scheme == "https", let host = url.host?.lowercased() else { return nil }
            return state.apps.first { app in
                app.host == host && !state.disabled.contains(app.name) && app.paths.contains { url.path.hasPrefix($0) }
            }
        }
    }
}
