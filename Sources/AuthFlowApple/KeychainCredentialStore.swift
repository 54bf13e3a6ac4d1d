#if canImport(Security)
public import AuthFlow
public import Foundation
import Security
#if canImport(LocalAuthentication)
import LocalAuthentication
#endif

/// Session storage in the Keychain: one generic-password item per issuer,
/// client and profile (``CredentialKey/account``), holding the same versioned
/// JSON as the file store (`CredentialCoding`). Available on every Apple
/// platform, tvOS and watchOS included.
///
/// Failures are typed by cause (``KeychainStatus``): a Keychain that is
/// locked because the device has not been unlocked since it started is a
/// retryable `storage` error that says so, with the `OSStatus` kept as the
/// error's `underlyingError`.
///
/// An app and its extensions that share the item (``accessGroup``) also
/// share a refresh lease in their app group container (``appGroup``):
/// refreshes take turns across processes, so exactly one refreshes and the
/// others read its result from the item, and no file lock is held across the
/// network (see "Sharing a session with app extensions").
///
/// A session bound to a Secure Enclave DPoP key also has a second item, the
/// key's handle (``readSecureEnclaveDPoPKeyHandle()``).
public struct KeychainCredentialStore: Sendable {
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
    /// The app group whose container holds the cross-process refresh lock.
    public let appGroup: String?
    /// When the item is readable.
    public let accessibility: Accessibility
    /// Face ID / Touch ID protection of the session record; nil: none.
    public let biometricProtection: BiometricProtection?
    #if canImport(LocalAuthentication)
    /// The authentication context reused for ``BiometricProtection/reuseDuration``.
    private let contexts: ReusedAuthenticationContext<LAContext>
    #endif

    /// Creates a store. Give `accessGroup` and `appGroup` when extensions
    /// share the session; give `biometricProtection` to keep the session
    /// behind Face ID, Touch ID or the passcode (not on tvOS).
    public init(
        key: CredentialKey, service: String = "AuthFlow", accessGroup: String? = nil, appGroup: String? = nil,
        accessibility: Accessibility = .afterFirstUnlockThisDeviceOnly, biometricProtection: BiometricProtection? = nil
    ) {
        self.key = key
        self.service = service
        self.accessGroup = accessGroup
        self.appGroup = appGroup
        self.accessibility = accessibility
        self.biometricProtection = biometricProtection
        #if canImport(LocalAuthentication)
        let reuse = biometricProtection?.reuseDuration ?? 0
        contexts = ReusedAuthenticationContext(reuseDuration: reuse) {
            let context = LAContext()
            #if !os(watchOS)
            context.touchIDAuthenticationAllowableReuseDuration = reuse
            #endif
            return context
        }
        #endif
    }

    /// The access control for `protection`, with the store's accessibility.
    private func accessControl(_ protection: BiometricProtection) throws -> SecAccessControl {
        let flags: SecAccessControlCreateFlags = protection.policy == .biometryCurrentSet ? .biometryCurrentSet : .userPresence
        guard let control = SecAccessControlCreateWithFlags(nil, accessibility.value, flags, nil) else {
            throw AuthFlowError(
                .configuration, "the Keychain cannot make the biometric access control",
                recovery: "Check that the device has a passcode set.")
        }
        return control
    }

    /// The unprotected item beside a protected record that says a session
    /// was saved, so that a record the system dropped after an enrolment
    /// change is told apart from no session.
    private var markerAccount: String { key.account + " biometric-marker" }

    private func query(account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecUseDataProtectionKeychain as String: true,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }

    /// The stored item's bytes, or nil when there is none.
    public func readItem() throws -> Data? {
        #if canImport(LocalAuthentication)
        if biometricProtection != nil {
            var request = query(account: key.account)
            request[kSecReturnData as String] = true
            request[kSecMatchLimit as String] = kSecMatchLimitOne
            let lookup = request
            return try readProtectedItem(
                contexts: contexts, item: service, markerPresent: { try readItem(account: markerAccount) != nil },
                read: { context in
                    var query = lookup
                    query[kSecUseAuthenticationContext as String] = context
                    var result: CFTypeRef?
                    let status = KeychainStatus(SecItemCopyMatching(query as CFDictionary, &result))
                    return (status, result as? Data)
                })
        }
        #endif
        return try readItem(account: key.account)
    }

    private func readItem(account: String) throws -> Data? {
        var request = query(account: account)
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitOne
        return try KeychainItemRules.read(item: service) {
            var result: CFTypeRef?
            let status = KeychainStatus(SecItemCopyMatching(request as CFDictionary, &result))
            return (status, result as? Data)
        }
    }

    /// Replaces the item's bytes (adding the item when missing).
    public func writeItem(_ data: Data) throws {
        #if canImport(LocalAuthentication)
        if let biometricProtection {
            var update: [String: Any] = [
                kSecValueData as String: data, kSecAttrAccessControl as String: try accessControl(biometricProtection),
            ]
            update[kSecUseAuthenticationContext as String] = contexts.context()
            try writeItem(update: update, account: key.account)
            try writeItem(Data([1]), account: markerAccount)
            return
        }
        #endif
        try writeItem(data, account: key.account)
    }

    private func writeItem(_ data: Data, account: String) throws {
        try writeItem(update: [kSecValueData as String: data, kSecAttrAccessible as String: accessibility.value], account: account)
    }

    private func writeItem(update: [String: Any], account: String) throws {
        let item = query(account: account)
        try KeychainItemRules.write(
            item: service,
            update: { KeychainStatus(SecItemUpdate(item as CFDictionary, update as CFDictionary)) },
            add: { KeychainStatus(SecItemAdd(item.merging(update) { $1 } as CFDictionary, nil)) })
    }

    /// Deletes the item (nothing to do when missing).
    public func deleteItem() throws {
        try deleteItem(account: key.account)
        try deleteItem(account: markerAccount)
    }

    private func deleteItem(account: String) throws {
        let item = query(account: account)
        try KeychainItemRules.delete(item: service) { KeychainStatus(SecItemDelete(item as CFDictionary)) }
    }

    /// The handle of the session's Secure Enclave DPoP key
    /// (``SecureEnclaveDPoPKey/dataRepresentation``), or nil when none is
    /// stored. It is kept in an item of its own
    /// (``CredentialKey/secureEnclaveDPoPKeyAccount``) with the same service,
    /// access group and accessibility as the session record, so it never
    /// leaves this device. The handle is not the private key: only this
    /// device's Secure Enclave can use it.
    public func readSecureEnclaveDPoPKeyHandle() throws -> Data? {
        try readItem(account: key.secureEnclaveDPoPKeyAccount)
    }

    /// Stores the handle of the session's Secure Enclave DPoP key.
    public func writeSecureEnclaveDPoPKeyHandle(_ handle: Data) throws {
        try writeItem(handle, account: key.secureEnclaveDPoPKeyAccount)
    }

    /// Deletes the stored Secure Enclave DPoP key handle (nothing to do when
    /// missing). Without its handle the enclave key cannot be used again.
    public func deleteSecureEnclaveDPoPKeyHandle() throws {
        try deleteItem(account: key.secureEnclaveDPoPKeyAccount)
    }

    /// Runs `body` holding the app group's refresh lease (when ``appGroup``
    /// is set), so that the app and its extensions refresh one at a time.
    /// No file lock is held while `body` runs: the lock in the container is
    /// held only to read and write the lease (``RefreshLease``), so a
    /// process suspended mid-refresh is never killed for holding it.
    public func exclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        guard let appGroup else { return try await body() }
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else {
            throw AuthFlowError(
                .configuration, "the app group \(appGroup) has no container",
                recovery: "Add \(appGroup) to the App Groups capability of the app and of each extension that shares the session.")
        }
        let lease = RefreshLease(
            url: container.appendingPathComponent("AuthFlow", isDirectory: true)
                .appendingPathComponent("\(lockName).lease"))
        return try await lease.withLease(body)
    }

    /// A file name for the lock, the same in every process: the account,
    /// percent-encoded (one shared name when that is too long for a file name,
    /// which only makes unrelated sessions take turns too).
    private var lockName: String {
        let name = key.account.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return name.isEmpty || name.utf8.count > 200 ? "session" : name
    }
}
#endif
