#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which profile a credential helper answers with.
///
/// With `--profile NAME`, that profile, for the URLs in its
/// `credential_urls` when it lists any, else for any https URL (and http on
/// loopback): the helper is then configured for the right URLs in git or
/// Docker. Without `--profile`, the profile whose `credential_urls` serve
/// the URL, the most specific pattern winning; none is no answer (git tries
/// its next helper), and two profiles claiming the same URL equally is an
/// error rather than a guess.
enum CredentialProfiles {
    /// The username the helpers give when the profile sets none.
    static let defaultUsername = "oauth2"

    /// The profile names in the profile directory, sorted.
    static func names() -> [String] {
        guard let directory = ProfileLocation.url(for: "default")?.deletingLastPathComponent(),
            let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else { return [] }
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.filter(ProfileLocation.isValidName).sorted()
    }

    /// The profile that serves `target`, or nil when none does.
    static func select(explicit name: String?, for target: CredentialTarget) throws -> Profile? {
        if let name {
            let profile = try Profile.load(name)
            return serves(profile, target) ? profile : nil
        }
        var best: (profile: Profile, specificity: Int)?
        var tied: String?
        for name in names() {
            let profile: Profile
            do {
                // The URLs are settings: no profile's secrets are read (from the keyring) to choose one.
                guard let loaded = try Profile.loadSettingsIfPresent(name) else { continue }
                profile = loaded
            } catch {
                Output.stderr("warning: profile \(name) is skipped: \(error)")
                continue
            }
            for pattern in patterns(of: profile) where pattern.serves(target) {
                let specificity = pattern.specificity
                if let current = best, current.specificity == specificity, current.profile.name != profile.name {
                    tied = profile.name
                } else if best == nil || specificity > best!.specificity {
                    best = (profile, specificity)
                    tied = nil
                }
            }
        }
        if let tied, let best {
            throw AuthFlowError(
                .configuration, "profiles \([tied, best.profile.name].sorted().joined(separator: " and ")) both claim \(target.text)",
                recovery: "Remove the URL from one of them: authflow credential hosts --profile NAME --remove URL")
        }
        return best?.profile
    }

    /// Whether `profile` answers for `target` when named explicitly.
    static func serves(_ profile: Profile, _ target: CredentialTarget) -> Bool {
        let patterns = patterns(of: profile)
        if !patterns.isEmpty { return patterns.contains { $0.serves(target) } }
        return target.scheme == "https" || target.isLoopback
    }

    static func patterns(of profile: Profile) -> [CredentialTarget] {
        (profile.credentialURLs ?? []).compactMap(CredentialTarget.init(url:))
    }

    static func username(of profile: Profile) -> String {
        profile.credentialUsername ?? defaultUsername
    }
}

extension Profile {
    /// This profile with the credential-helper settings (URLs, username) of
    /// the profile stored under its name when it sets none itself: a new
    /// `authflow login --issuer …` of a profile keeps which URLs it serves.
    /// A stored profile that cannot be read (a directory others can use, a
    /// damaged file) has no settings to keep: the new sign-in replaces it,
    /// and saving it repairs the directory's mode.
    func keepingCredentialSettings() -> Profile {
        guard credentialURLs == nil || credentialUsername == nil, let stored = (try? Profile.loadIfPresent(name)) ?? nil else {
            return self
        }
        var copy = self
        copy.credentialURLs = credentialURLs ?? stored.credentialURLs
        copy.credentialUsername = credentialUsername ?? stored.credentialUsername
        return copy
    }
}
#endif
