#if canImport(Security)
public import AuthFlow
import Foundation
import Security

extension KeychainCredentialStore: CredentialStore {
    /// The stored session record, or nil when there is none.
    public func load() async throws -> SessionRecord? {
        guard let data = try readItem() else { return nil }
        return try CredentialCoding.decode(data, source: "Keychain item \(service)")
    }

    /// Replaces the stored session record.
    public func save(_ record: SessionRecord) async throws {
        try writeItem(CredentialCoding.encode(record))
    }

    /// Forgets the session record.
    public func delete() async throws {
        try deleteItem()
    }

    /// Runs `body` holding the app group's cross-process lock (see ``exclusiveAccess(_:)``).
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await exclusiveAccess(body)
    }
}

extension KeychainCredentialStore {
    /// The store for `settings`: its Keychain access group, app group and biometric protection.
    public init(settings: AppleSignInSettings) {
        self.init(
            key: settings.credentialKey, accessGroup: settings.keychainAccessGroup, appGroup: settings.appGroup,
            biometricProtection: settings.biometricProtection)
    }
}
#endif
