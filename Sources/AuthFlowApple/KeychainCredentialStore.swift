#if canImport(Security)
public import AuthFlow
public import Foundation
import Security
#if canImport(LocalAuthentication)
package import LocalAuthentication

/// The authentication context of a biometric-protected session.
package typealias KeychainAuthenticationContext = LAContext
#else
/// No biometric protection here (tvOS): a context that is never made.
package typealias KeychainAuthenticationContext = NoAuthenticationContext
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
/// On a Linux desktop, `SecretServiceCredentialStore` (the
/// AuthFlowSecretService product) keeps the same record in the desktop keyring.
///
/// A session bound to a Secure Enclave DPoP key also has a second item, the
/// key's handle (``readSecureEnclaveDPoPKeyHandle()``).
///
/// With ``biometricProtection``, the store keeps one authentication context
/// for everything the session does, and only ``unlock()`` (or AppleSignIn's
/// restore, sign-in and sign-out) may show Face ID, Touch ID or the
/// passcode: reads, saves and DPoP proofs never prompt, and fail with
/// ``BiometricFailure/locked`` outside the in-app reuse window. A save that
/// cannot open the record keeps the new record in a protected pending item
/// that the next read moves into place, so rotated tokens survive a relaunch.
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
    /// How long a refresh waits for another process of the app group that
    /// is refreshing the same session, before failing with `timeout`:
    /// 20 seconds by default. A widget or another extension with a few
    /// seconds to run sets it lower and shows what it has on `timeout`.
    public var refreshWaitLimit: TimeInterval = RefreshLease.defaultWaitLimit
    /// The items, as plain Swift over the `SecItem` calls.
    private let items: KeychainSessionItems<SecurityKeychainCalls, KeychainAuthenticationContext>

    /// The session's one authentication context, shared with a Secure
    /// Enclave DPoP key behind the same protection; nil without protection.
    package var authenticationContexts: BiometricContexts<KeychainAuthenticationContext>? { items.protection?.contexts }

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
        let accessible = accessibility.value
        #if canImport(LocalAuthentication)
        let protection = biometricProtection.map { protection in
            (
                contexts: BiometricContexts(protection: protection) { LAContext() },
                accessControl: { () throws -> Any in try Self.accessControl(protection, accessible: accessible) }
            )
        }
        #else
        let protection: (contexts: BiometricContexts<KeychainAuthenticationContext>, accessControl: () throws -> Any)? = nil
        #endif
        items = KeychainSessionItems(
            calls: SecurityKeychainCalls(), keys: .security, service: service, account: key.account,
            accessGroup: accessGroup, accessible: accessible, protection: protection)
    }

    /// The access control for `protection`, with the store's accessibility.
    private static func accessControl(_ protection: BiometricProtection, accessible: CFString) throws -> SecAccessControl {
        let flags: SecAccessControlCreateFlags = protection.policy == .biometryCurrentSet ? .biometryCurrentSet : .userPresence
        guard let control = SecAccessControlCreateWithFlags(nil, accessible, flags, nil) else {
            throw AuthFlowError(
                .configuration, "the Keychain cannot make the biometric access control",
                recovery: "Check that the device has a passcode set.")
        }
        return control
    }

    /// Opens a biometric-protected session in the foreground: reads the
    /// record with the session's authentication context, showing Face ID,
    /// Touch ID or the passcode if the in-app reuse window is over. Every
    /// other operation of the store (``load()``, ``save(_:)``, DPoP proofs)
    /// never prompts; outside the window they fail with
    /// ``BiometricFailure/locked``. `AppleSignIn.restore()` calls this
    /// first. Without protection it only reads the item.
    ///
    /// - Returns: whether a session is stored.
    @discardableResult
    public func unlock() throws -> Bool {
        try items.readRecord(interactive: true) != nil
    }

    /// The stored item's bytes, or nil when there is none. A
    /// biometric-protected item is read without a prompt (see ``unlock()``).
    public func readItem() throws -> Data? {
        try items.readRecord(interactive: false)
    }

    /// Replaces the item's bytes (adding the item when missing). A
    /// biometric-protected item is written without a prompt: when it cannot
    /// be opened, the bytes are kept in a protected pending item that the
    /// next read prefers, so nothing saved is lost.
    public func writeItem(_ data: Data) throws {
        try items.writeRecord(data)
    }

    /// Checks, before a sign-in opens the browser, that the app may write to
    /// the Keychain (``KeychainSessionItems/checkAccess()``).
    package func checkKeychainAccess() throws {
        try items.checkAccess()
    }

    /// Deletes the item (nothing to do when missing).
    public func deleteItem() throws {
        try items.deleteRecord()
    }

    /// The handle of the session's Secure Enclave DPoP key
    /// (``SecureEnclaveDPoPKey/dataRepresentation``), or nil when none is
    /// stored. It is kept in an item of its own
    /// (``CredentialKey/secureEnclaveDPoPKeyAccount``) with the same service,
    /// access group and accessibility as the session record, so it never
    /// leaves this device. The handle is not the private key: only this
    /// device's Secure Enclave can use it.
    public func readSecureEnclaveDPoPKeyHandle() throws -> Data? {
        try items.readPlain(key.secureEnclaveDPoPKeyAccount)
    }

    /// Stores the handle of the session's Secure Enclave DPoP key.
    public func writeSecureEnclaveDPoPKeyHandle(_ handle: Data) throws {
        try items.writePlain(handle, account: key.secureEnclaveDPoPKeyAccount)
    }

    /// Deletes the stored Secure Enclave DPoP key handle (nothing to do when
    /// missing). Without its handle the enclave key cannot be used again.
    public func deleteSecureEnclaveDPoPKeyHandle() throws {
        try items.deletePlain(key.secureEnclaveDPoPKeyAccount)
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
                .appendingPathComponent("\(lockName).lease"), waitLimit: refreshWaitLimit)
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
