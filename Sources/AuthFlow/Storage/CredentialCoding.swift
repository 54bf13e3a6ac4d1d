#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The stored form of a session, shared by every persistent store (file,
/// Keychain): versioned JSON, so a newer or corrupt item is a clear
/// `configuration` error rather than a crash or a silent overwrite.
///
/// Version 2 stores a ``SessionRecord`` (credentials, provider metadata,
/// client authentication method). Version 1 items (credentials only) are
/// still read; restoring one discovers the metadata once.
package enum CredentialCoding {
    /// The format version written.
    public static let version = 2

    struct Envelope: Codable {
        let version: Int
        let record: SessionRecord
    }

    struct LegacyEnvelope: Codable {
        let version: Int
        let credentials: OAuthCredentials
    }

    /// Encodes `record` with the current version.
    public static func encode(_ record: SessionRecord) throws -> Data {
        try VersionedFile.encode(Envelope(version: version, record: record))
    }

    /// Decodes stored bytes (version 2, or version 1); `source` names where
    /// they came from in errors.
    public static func decode(_ data: Data, source: String) throws -> SessionRecord {
        switch try VersionedFile.version(of: data, path: source) {
        case 1:
            return .legacy(try VersionedFile.decode(LegacyEnvelope.self, from: data, current: 1, path: source).credentials)
        default:
            return try VersionedFile.decode(Envelope.self, from: data, current: version, path: source).record
        }
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
