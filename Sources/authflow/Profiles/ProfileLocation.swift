#if CLI // the CLI package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `authflow` keeps its profiles: `$XDG_CONFIG_HOME/authflow/NAME.json`
/// when `XDG_CONFIG_HOME` is an absolute path, else
/// `~/.config/authflow/NAME.json`.
enum ProfileLocation {
    /// Why a profile name is refused.
    static let nameRule = "profile names use letters, digits, '.', '_' and '-' and do not start with '.'"

    /// Whether `name` can name a profile: 1 to 64 of `A-Z a-z 0-9 . _ -`,
    /// not starting with `.` (so no name reaches outside the directory).
    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, first != UInt8(ascii: "."), bytes.count <= 64 else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default:
                false
            }
        }
    }

    /// The profile file of `name`, or nil when ``isValidName(_:)`` refuses it.
    ///
    /// - Parameters:
    ///   - name: the profile name.
    ///   - configHome: `XDG_CONFIG_HOME`, used only when it is an absolute path.
    static func url(for name: String, configHome: String? = ProfileLocation.environment("XDG_CONFIG_HOME")) -> URL? {
        guard isValidName(name) else { return nil }
        let base: URL
        if let configHome, configHome.hasPrefix("/") {
            base = URL(fileURLWithPath: configHome)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        }
        return base.appendingPathComponent("authflow").appendingPathComponent("\(name).json")
    }

    /// The environment variable `name`, when set. (`getenv`: building
    /// `ProcessInfo`'s whole environment dictionary costs more on every
    /// `authflow token` than the rest of finding the profile.)
    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
#endif
