import AuthFlow
import Foundation

/// What `authflow login` stores per profile: versioned JSON, mode 0600.
struct Profile: Codable {
    static let currentVersion = 1

    var version: Int
    var name: String
    var issuer: String?
    var authorizationEndpoint: URL
    var tokenEndpoint: URL
    var clientAuthentication: String
    var credentials: Credentials
    var savedAt: Date

    enum CodingKeys: String, CodingKey {
        case version, name, issuer, credentials
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case clientAuthentication = "client_auth"
        case savedAt = "saved_at"
    }

    /// `$XDG_CONFIG_HOME/authflow/NAME.json`, else `~/.config/authflow/NAME.json`.
    static func url(for name: String) throws -> URL {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        guard !name.isEmpty, !name.hasPrefix("."), name.count <= 64, name.unicodeScalars.allSatisfy(allowed.contains) else {
            throw AuthFlowError(.configuration, "profile names use letters, digits, '.', '_' and '-' and do not start with '.'")
        }
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        }
        return base.appendingPathComponent("authflow").appendingPathComponent("\(name).json")
    }

    static func load(_ name: String) throws -> Profile {
        let url = try url(for: name)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw AuthFlowError(.reauthenticationRequired, "no profile \(name); run authflow login first")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let version = try? decoder.decode(VersionOnly.self, from: data).version else {
            throw AuthFlowError(.configuration, "profile \(url.path) is corrupt")
        }
        guard version == currentVersion else {
            throw AuthFlowError(.configuration, "profile \(url.path) has version \(version); this authflow reads version \(currentVersion)")
        }
        guard let profile = try? decoder.decode(Profile.self, from: data) else {
            throw AuthFlowError(.configuration, "profile \(url.path) is corrupt")
        }
        return profile
    }

    func save() throws -> URL {
        let url = try Profile.url(for: name)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try AtomicFile.write(try encoder.encode(self), to: url)
        return url
    }

    private struct VersionOnly: Decodable { let version: Int }
}
