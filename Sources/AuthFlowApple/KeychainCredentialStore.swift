#if canImport(Security)
import AuthFlow
import Foundation
import Security

/// A ``CredentialStore`` in the Keychain: one generic-password item per
/// issuer, client and profile (``CredentialKey/account``), holding the same
/// versioned JSON as the file store (``CredentialCoding``).
public struct KeychainCredentialStore: CredentialStore {
    /// When the item is readable.
    public enum Accessibility: Sendable {
        /// After the first unlock since boot, this device only (the default:
        /// background refresh works, backups to other devices do not carry it).
        case afterFirstUnlockThisDeviceOnly
        /// Only while the device is unlocked, this device only.
        case whenUnlockedThisDeviceOnly

        var value: CFString {
            switch self {
            case .afterFirstUnlockThisDeviceOnly: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            case .whenUnlockedThisDeviceOnly: kSecAttrAccessibleWhenUnlockedThisDeviceOnly
            }
        }
    }

    /// The item's identity.
    public let key: CredentialKey
    /// The Keychain service name.
    public let service: String
    /// A shared access group, for app extensions.
    public let accessGroup: String?
    /// When the item is readable.
    public let accessibility: Accessibility

    /// Creates a store.
    public init(key: CredentialKey, service: String = "AuthFlow", accessGroup: String? = nil,
                accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly) {
        self.key = key
        self.service = service
        self.accessGroup = accessGroup
        self.accessibility = accessibility
    }

    private var query: [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                                    kSecAttrAccount as String: key.account]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    public func load() async throws -> Credentials? {
        var request = query
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(request as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess, let data = result as? Data else { throw Self.failure("read", status) }
        return try CredentialCoding.decode(data, source: "Keychain item \(service)")
    }

    public func save(_ credentials: Credentials) async throws {
        let data = try CredentialCoding.encode(credentials)
        let update: [String: Any] = [kSecValueData as String: data, kSecAttrAccessible as String: accessibility.value]
        var status = SecItemUpdate(query as CFDictionary, update as CFDictionary)
        if status == errSecItemNotFound {
            status = SecItemAdd(query.merging(update) { $1 } as CFDictionary, nil)
        }
        guard status == errSecSuccess else { throw Self.failure("write", status) }
    }

    public func delete() async throws {
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.failure("delete", status) }
    }

    private static func failure(_ action: String, _ status: OSStatus) -> AuthFlowError {
        AuthFlowError(.configuration, "cannot \(action) the Keychain item (OSStatus \(status))")
    }
}
#endif
