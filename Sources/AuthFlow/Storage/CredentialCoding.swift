import Foundation

/// The stored form of credentials, shared by every persistent store (file,
/// Keychain): versioned JSON, so a newer or corrupt item is a clear
/// `configuration` error rather than a crash or a silent overwrite.
public enum CredentialCoding {
    /// The format version written.
    public static let version = 1

    struct Envelope: Codable {
        let version: Int
        let credentials: Credentials
    }

    /// Encodes `credentials` with the current version.
    public static func encode(_ credentials: Credentials) throws -> Data {
        try VersionedFile.encode(Envelope(version: version, credentials: credentials))
    }

    /// Decodes stored bytes; `source` names where they came from in errors.
    public static func decode(_ data: Data, source: String) throws -> Credentials {
        try VersionedFile.decode(Envelope.self, from: data, current: version, path: source).credentials
    }
}

/// Identifies one set of stored credentials: an issuer, a client and a
/// profile name. Stores derive their item names from it (the Keychain
/// account, a file name).
public struct CredentialKey: Sendable, Hashable {
    /// The issuer (or token endpoint for providers without discovery).
    public var issuer: String
    /// The client identifier.
    public var clientID: String
    /// A profile name, for apps with several accounts.
    public var profile: String

    /// Creates a key.
    public init(issuer: String, clientID: String, profile: String = "default") {
        self.issuer = issuer
        self.clientID = clientID
        self.profile = profile
    }

    /// A stable, unambiguous item name: each part percent-encoded, joined by
    /// spaces (which the encoding never produces).
    public var account: String {
        [issuer, clientID, profile].map(FormEncoding.escape).joined(separator: " ")
    }
}
