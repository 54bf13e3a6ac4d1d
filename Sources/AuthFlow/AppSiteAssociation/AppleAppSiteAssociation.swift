#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The `apple-app-site-association` file that lets an app receive https
/// (universal link) redirects in a web-authentication session.
///
/// Served at `https://HOST/.well-known/apple-app-site-association` with
/// content type `application/json`, without redirects. It names the app in
/// two services: `webcredentials` (which `ASWebAuthenticationSession`
/// checks before it delivers an https callback) and `applinks` for the
/// callback paths. The app lists the host in its Associated Domains
/// entitlement as `webcredentials:HOST` and `applinks:HOST`.
package struct AppleAppSiteAssociation: Sendable, Equatable {
    /// App identifiers, `TEAMID.bundle.identifier`.
    package let appIDs: [String]
    /// The callback paths, each beginning with `/`.
    package let paths: [String]

    /// A file for `appIDs` and the callback `paths`. An app ID must be a
    /// ten-character team identifier (uppercase letters and digits), a dot
    /// and a bundle identifier; a path must begin with `/` and contain no
    /// query, fragment or pattern characters (`*`, `?`, `#`), because the
    /// redirect path is matched literally.
    package init(appIDs: [String], paths: [String]) throws {
        guard !appIDs.isEmpty else {
            throw AuthFlowError(
                .configuration, "at least one app ID is needed", recovery: "Give appIDs at least one TEAMID.bundle.identifier.",
                remedy: .giveAnAppID)
        }
        guard !paths.isEmpty else {
            throw AuthFlowError(
                .configuration, "at least one callback path is needed", recovery: "Give paths at least one path, such as /callback.",
                remedy: .giveACallbackPath)
        }
        for appID in appIDs where !Self.isAppID(appID) {
            throw AuthFlowError(
                .configuration, "\"\(appID)\" is not an app ID (TEAMID.bundle.identifier)",
                recovery:
                    "Use the ten-character Team ID from the Apple developer account, a dot and the app's bundle identifier, such as ABCDE12345.com.example.app."
            )
        }
        for path in paths where !Self.isLiteralPath(path) {
            throw AuthFlowError(
                .configuration, "\"\(path)\" is not a callback path",
                recovery: "Give the path of the https redirect URI, beginning with / and without query, fragment, * or ?.")
        }
        self.appIDs = appIDs
        self.paths = paths
    }

    /// The file's JSON, pretty-printed with sorted keys.
    package func json() throws -> Data {
        let file = File(
            applinks: .init(details: [.init(appIDs: appIDs, components: paths.map { .init(path: $0) })]),
            webcredentials: .init(apps: appIDs))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(file)
    }

    static func isAppID(_ value: String) -> Bool {
        let parts = value.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 10,
            parts[0].utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) })
        else { return false }
        let bundle = parts[1].utf8
        guard !bundle.isEmpty, bundle.first != UInt8(ascii: "."), bundle.last != UInt8(ascii: ".") else { return false }
        return bundle.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
    }

    static func isLiteralPath(_ value: String) -> Bool {
        guard value.hasPrefix("/") else { return false }
        return value.unicodeScalars.allSatisfy { scalar in
            scalar.value > 0x20 && scalar.value < 0x7F && !"*?#%\\\"".unicodeScalars.contains(scalar)
        }
    }

    private struct File: Encodable {
        struct AppLinks: Encodable {
            struct Detail: Encodable {
                struct Component: Encodable {
                    let path: String
                    enum CodingKeys: String, CodingKey { case path = "/" }
                }
                let appIDs: [String]
                let components: [Component]
            }
            let details: [Detail]
        }
        struct WebCredentials: Encodable { let apps: [String] }
        let applinks: AppLinks
        let webcredentials: WebCredentials
    }
}
