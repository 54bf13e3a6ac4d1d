#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow credential hosts`: which URLs a profile's token is for, so that
/// git and Docker pick the right identity without `--profile`, and the
/// username the helpers answer with. Without changes, lists every profile's URLs.
struct CredentialHostsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hosts", abstract: "Choose the URLs a profile's credentials are for (git and Docker).",
        discussion: """
            authflow credential hosts --profile work --add https://forge.example.com --username oauth2
            A URL serves its host and port, and with a path, that path and below (git sends paths with credential.useHttpPath).
            """)

    @Option(help: "The profile to change (default: list every profile).")
    var profile: String?
    @Option(help: "A URL this profile serves (https, or http on a loopback IP: 127.0.0.0/8 or [::1]; repeatable).")
    var add: [String] = []
    @Option(help: "A URL this profile no longer serves (repeatable).")
    var remove: [String] = []
    @Option(help: "The username git and Docker are given with the token (default oauth2).")
    var username: String?
    @Flag(help: "Print JSON on stdout.")
    var json = false

    /// The most URLs a profile keeps.
    static let maximumURLs = 100

    func validate() throws {
        for url in add {
            guard let target = CredentialTarget(url: url) else { throw ValidationError("--add \(url) is not an http(s) URL") }
            guard target.scheme == "https" || target.isLoopback else {
                throw ValidationError(
                    "--add \(url): plain http is only for a loopback IP literal (127.0.0.0/8 or [::1]), not a host name; the token must not cross the network in clear"
                )
            }
        }
        if let username {
            guard !username.isEmpty, username.utf8.count <= 256,
                !username.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7F}" })
            else { throw ValidationError("--username takes 1 to 256 characters without control characters") }
        }
        if profile == nil, !(add.isEmpty && remove.isEmpty && username == nil) {
            throw ValidationError("--add, --remove and --username change a profile: give --profile")
        }
    }

    func run() async throws {
        do {
            if let profile { try await change(profile) }
            let rows = try listed()
            if json {
                Output.json(rows)
            } else if rows.isEmpty {
                Output.stderr("No profile serves a URL yet: authflow credential hosts --profile NAME --add URL")
            } else {
                for row in rows { Output.stdout("\(row.url)\t\(row.profile)\t\(row.username)") }
            }
        } catch {
            throw Output.fail(error, json: json)
        }
    }

    private func change(_ name: String) async throws {
        let add = add.compactMap { CredentialTarget(url: $0)?.text }
        let remove = Set(remove.compactMap { CredentialTarget(url: $0)?.text })
        let username = username
        try await ProfileStore(name: name).lock.withLock {
            var profile = try Profile.load(name)
            var urls = (profile.credentialURLs ?? []).filter { !remove.contains(CredentialTarget(url: $0)?.text ?? $0) }
            for url in add where !urls.contains(url) { urls.append(url) }
            guard urls.count <= Self.maximumURLs else {
                throw AuthFlowError(.configuration, "a profile serves at most \(Self.maximumURLs) URLs")
            }
            profile.credentialURLs = urls.isEmpty ? nil : urls
            if let username { profile.credentialUsername = username }
            try profile.save()
        }
    }

    struct Row: Encodable {
        let url: String
        let profile: String
        let username: String
    }

    private func listed() throws -> [Row] {
        let names = profile.map { [$0] } ?? CredentialProfiles.names()
        var rows: [Row] = []
        for name in names {
            guard let profile = try Profile.loadSettingsIfPresent(name) else { continue }
            for url in profile.credentialURLs ?? [] {
                rows.append(Row(url: url, profile: name, username: CredentialProfiles.username(of: profile)))
            }
        }
        return rows
    }
}
#endif
