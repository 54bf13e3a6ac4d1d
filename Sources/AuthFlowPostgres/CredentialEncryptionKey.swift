#if PostgreSQL // the PostgreSQL package trait
public import Crypto
import AuthFlow
import Foundation

/// A key that encrypts session records at rest (AES-256-GCM), with the ID
/// stored beside each row so that keys can rotate.
///
/// The key comes from the caller (a secrets manager, a file readable by the
/// service only); AuthFlow never stores it. Neither ``description`` nor a
/// mirror of the value shows the key.
public struct CredentialEncryptionKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The key's name, stored in each row it encrypts: 1 to 64 ASCII letters,
    /// digits, `-`, `_` or `.`.
    public let id: String
    let key: SymmetricKey

    /// A 256-bit key named `id`.
    ///
    /// - Throws: `AuthFlowError/Category/configuration` when the key is not
    ///   32 bytes or the ID is empty, too long or has other characters.
    public init(id: String, key: SymmetricKey) throws {
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy(Self.isIDByte) else {
            throw AuthFlowError(
                .configuration, "an encryption key ID must be 1 to 64 ASCII letters, digits, '-', '_' or '.'")
        }
        guard key.bitCount == 256 else {
            throw AuthFlowError(.configuration, "the encryption key \(id) has \(key.bitCount) bits; it must have 256 (32 bytes)")
        }
        self.id = id
        self.key = key
    }

    /// A key from its 32 bytes in base64 (standard or URL-safe, padding optional).
    ///
    /// - Throws: `AuthFlowError/Category/configuration` when the text is not
    ///   base64 of 32 bytes; the message never repeats the text.
    public init(id: String, base64: String) throws {
        var text = base64.trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let bytes = Data(base64Encoded: text) else {
            throw AuthFlowError(.configuration, "the encryption key \(id) is not base64")
        }
        try self.init(id: id, key: SymmetricKey(data: bytes))
    }

    /// The ID only.
    public var description: String { "CredentialEncryptionKey(id: \(id))" }

    /// The ID only: the key never reaches a debugger's or logger's dump.
    public var customMirror: Mirror { Mirror(self, children: ["id": id]) }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}

/// The keys a ``PostgresSessionTable`` encrypts with: the ``current`` key
/// encrypts every row written, and every key (current or previous) decrypts
/// the rows that name its ID. To rotate, make a new key current and keep the
/// old one among ``previous`` until every row has been written again (each
/// refresh rewrites its row).
public struct CredentialEncryptionKeys: Sendable, CustomStringConvertible {
    /// The key new rows are encrypted with.
    public let current: CredentialEncryptionKey
    /// Older keys, for reading rows not yet written again.
    public let previous: [CredentialEncryptionKey]

    /// The keys; their IDs must differ.
    ///
    /// - Throws: `AuthFlowError/Category/configuration` when two keys share an ID.
    public init(current: CredentialEncryptionKey, previous: [CredentialEncryptionKey] = []) throws {
        var seen: Set<String> = []
        for key in [current] + previous where !seen.insert(key.id).inserted {
            throw AuthFlowError(.configuration, "two encryption keys have the ID \(key.id)")
        }
        self.current = current
        self.previous = previous
    }

    /// The key IDs only.
    public var description: String {
        "CredentialEncryptionKeys(current: \(current.id), previous: [\(previous.map(\.id).joined(separator: ", "))])"
    }

    func key(id: String) -> CredentialEncryptionKey? {
        id == current.id ? current : previous.first { $0.id == id }
    }
}
#endif
