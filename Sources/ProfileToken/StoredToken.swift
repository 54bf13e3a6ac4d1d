#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import AuthFlowStoredDate

/// The members of a stored profile that `authflow token` reads for a token
/// that is still valid: the access token, its type and its expiry.
public struct StoredToken: Sendable, Equatable, Decodable {
    /// The access token. Secret.
    public let accessToken: String
    /// `Bearer` or `DPoP`, when stored.
    public let tokenType: String?
    /// When the access token expires, when known.
    public let expiresAt: Date?
    /// The lifetime the token response gave, in seconds.
    public let expiresIn: Int?

    /// Creates a stored token.
    public init(accessToken: String, tokenType: String?, expiresAt: Date?, expiresIn: Int?) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.expiresIn = expiresIn
    }

    /// A DPoP-bound token is useless without a proof from its key, so it is
    /// never printed as if it were a bearer token.
    public var isDPoPBound: Bool { tokenType?.lowercased() == "dpop" }
}

/// Reading the stored token from a profile file written by `authflow login`
/// (versioned JSON; the token sits at `credentials.token`).
public enum StoredProfile {
    /// The newest profile format version; this reads versions 1 through it,
    /// whose token members are alike.
    public static let currentVersion = 2

    /// The access token stored in profile `name`; nil when the profile does
    /// not exist, cannot be read, has another format version, holds no
    /// credentials, or anything in it is not exactly as `authflow` writes it.
    /// A nil answer leaves the decision to the full profile reader, which
    /// reports what is wrong.
    ///
    /// - Parameters:
    ///   - name: the profile name.
    ///   - configHome: `XDG_CONFIG_HOME`, as for ``ProfileLocation/url(for:configHome:)``.
    public static func token(profile name: String,
                             configHome: String? = ProfileLocation.environment("XDG_CONFIG_HOME")) -> StoredToken? {
        guard let url = ProfileLocation.url(for: name, configHome: configHome),
              let data = FileManager.default.contents(atPath: url.path) else { return nil }
        return token(in: data)
    }

    /// The access token in the bytes of a profile file; nil as for ``token(profile:)``.
    public static func token(in data: Data) -> StoredToken? {
        let decoder = JSONDecoder()
        guard let version = (try? decoder.decode(VersionOnly.self, from: data))?.version,
              (1...currentVersion).contains(version) else { return nil }
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = StoredDate.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a stored date"))
            }
            return date
        }
        return (try? decoder.decode(Stored.self, from: data))?.credentials?.token
    }

    private struct VersionOnly: Decodable { let version: Int }

    private struct Stored: Decodable {
        struct Credentials: Decodable { let token: StoredToken }
        let credentials: Credentials?
    }
}
