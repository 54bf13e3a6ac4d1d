#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading a profile file safely: the engine's `PrivateFile` rules (a
/// private regular file, not a link, owned by this user, in a private
/// directory of this user), in the CLI's words.
enum ProfileFile {
    /// Larger profile files are refused (a profile is a few kilobytes).
    static let maximumSize = 1 << 20
    /// How the errors name a profile.
    static let wording = PrivateFile.Wording(noun: "profile", again: "sign in again with authflow login") { path in
        "Put the profile itself there: cp --remove-destination \"$(readlink -f \(path))\" \(path) && chmod 600 \(path)"
    }

    /// The bytes of the profile file at `url`; nil when it or its directory does not exist.
    static func read(_ url: URL) throws -> Data? {
        try PrivateFile.read(url, maximumSize: maximumSize, wording: wording)
    }

    /// Creates the profile directory (mode 0700) when missing and repairs its
    /// mode when group or others may use it; refuses a directory owned by another user.
    static func prepareDirectory(of url: URL) throws {
        try PrivateFile.prepareDirectory(of: url, wording: wording)
    }
}
#endif
