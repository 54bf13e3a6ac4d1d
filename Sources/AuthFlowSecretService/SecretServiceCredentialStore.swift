public import AuthFlow

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Session storage in the desktop keyring of Linux (GNOME Keyring, KWallet,
/// KeePassXC): the freedesktop.org Secret Service API on the session bus.
/// One item per issuer, client and profile, holding the same versioned JSON
/// as the file store and the Keychain; what `KeychainCredentialStore` is on
/// Apple platforms.
///
/// The item carries the attributes `application`, `issuer`, `client_id` and
/// `profile` (``attributes``), and the label ``label``. Secrets travel in
/// an encrypted Secret Service session (`dh-ietf1024-sha256-aes128-cbc-pkcs7`),
/// or, with a service that offers only that, in a `plain` one over the
/// private, authenticated session bus.
///
/// The store never shows a prompt: a locked keyring is a
/// `AuthFlowError.Category.storage` error with the reason
/// `keyring_locked`; no session bus, no service, a bus that does not answer
/// within ``timeout`` or a keyring without a default collection is
/// `storage` with the reason `keyring_unavailable`. Each call opens its own
/// connection on a thread of its own, so a bus that hangs holds no task of
/// the cooperative pool longer than it takes to resume.
///
/// Refreshes are serialized across the processes of the app that share the
/// item when ``lockFile`` names a file (a cross-process lock); without one,
/// within the `AuthSession` only.
public struct SecretServiceCredentialStore: CredentialStore {
    /// The session's identity: its issuer, client and profile.
    public let key: CredentialKey
    /// The application the item belongs to (its `application` attribute).
    public let application: String
    /// Each connection, and each call over it, is given this long.
    public let timeout: Duration
    /// A file locked around refreshes and sign-out by every process that
    /// names it; nil: none.
    public let lockFile: URL?
    private let busAddress: String?
    private let lock: FileLock?

    /// A store for `key` in the keyring of the session bus this process was
    /// started with (`DBUS_SESSION_BUS_ADDRESS`).
    ///
    /// - Parameters:
    ///   - key: the issuer, client and profile.
    ///   - application: your application's name, as the keyring shows it.
    ///   - timeout: how long each connection and each call over it may take.
    ///   - lockFile: a file locked around refreshes, for several processes
    ///     sharing the session; nil for one process.
    public init(key: CredentialKey, application: String, timeout: Duration = .seconds(10), lockFile: URL? = nil) {
        self.init(
            key: key, application: application, timeout: timeout, lockFile: lockFile,
            busAddress: ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"])
    }

    package init(key: CredentialKey, application: String, timeout: Duration, lockFile: URL?, busAddress: String?) {
        self.key = key
        self.application = application
        self.timeout = timeout
        self.lockFile = lockFile
        self.busAddress = busAddress
        lock = lockFile.map { FileLock(url: $0, name: "the keyring item \(key.account)") }
    }

    /// What the keyring shows for the item.
    public var label: String { "\(application): \(key.profile) (\(key.issuer))" }

    /// The attributes that find the item.
    public var attributes: [String: String] {
        ["application": application, "issuer": key.issuer, "client_id": key.clientID, "profile": key.profile]
    }

    /// Whether a Secret Service is running on the session bus now, asked
    /// without starting one: for choosing between the keyring and a file.
    public static func isAvailable(timeout: Duration = .seconds(2)) async -> Bool {
        let address = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        return await offloaded { SecretServiceItem.isAvailable(busAddress: address, timeout: timeout) }
    }

    /// The stored session record, or nil when there is none.
    public func load() async throws -> SessionRecord? {
        let item = item
        guard let data = try await run({ () throws(SecretServiceError) in try item.read() }) else { return nil }
        return try CredentialCoding.decode(Data(data), source: "the keyring item \(label)")
    }

    /// Replaces the stored session record.
    public func save(_ record: SessionRecord) async throws {
        let item = item
        let bytes = [UInt8](try CredentialCoding.encode(record))
        try await run { () throws(SecretServiceError) in try item.write(bytes, contentType: "application/json") }
    }

    /// Forgets the session record.
    public func delete() async throws {
        let item = item
        try await run { () throws(SecretServiceError) in try item.delete() }
    }

    /// Runs `body` holding ``lockFile`` when there is one.
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        guard let lock else { return try await body() }
        return try await lock.withLock(body)
    }

    private var item: SecretServiceItem {
        SecretServiceItem(
            label: label, attributes: attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, busAddress: busAddress,
            timeout: timeout)
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () throws(SecretServiceError) -> T) async throws -> T {
        let result: Result<T, SecretServiceError> = await Self.offloaded {
            do throws(SecretServiceError) { return .success(try body()) } catch { return .failure(error) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw error.authFlowError(fallback: nil)
        }
    }

    /// `body` on a thread of its own: the D-Bus calls block (bounded by ``timeout``).
    private static func offloaded<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await DetachedThread.run(body)
    }
}
