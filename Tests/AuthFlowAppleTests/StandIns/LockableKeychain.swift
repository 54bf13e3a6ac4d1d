import AuthFlow
import Foundation

@testable import AuthFlowApple

/// The Keychain credential store's logic (``KeychainItemRules``, the
/// record's coding) over the ``SimulatedKeychain``: a store whose item is
/// readable only while the device is unlocked.
final class LockableKeychain: CredentialStore {
    let keychain = SimulatedKeychain()
    let account = "https://idp.example app default"

    init() {}

    func lock() { keychain.lockDevice() }
    func unlock() { keychain.unlockDevice() }

    func load() async throws -> SessionRecord? {
        guard let data = try KeychainItemRules.read(item: "AuthFlow", copy: { keychain.copyMatching(account) }) else { return nil }
        return try CredentialCoding.decode(data, source: "Keychain item AuthFlow")
    }

    func save(_ record: SessionRecord) async throws {
        let data = try CredentialCoding.encode(record)
        try KeychainItemRules.write(item: "AuthFlow", update: { keychain.update(account, data) }, add: { keychain.add(account, data) })
    }

    func delete() async throws {
        try KeychainItemRules.delete(item: "AuthFlow") { keychain.delete(account) }
    }
}
