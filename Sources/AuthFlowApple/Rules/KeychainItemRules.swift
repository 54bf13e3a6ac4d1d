import AuthFlow
package import Foundation

/// What ``KeychainCredentialStore`` does with the Keychain's answers, as
/// plain Swift over the `SecItem` calls, so it runs everywhere against a
/// behavioural stand-in of the Keychain.
package enum KeychainItemRules {
    /// A read (`SecItemCopyMatching`): nil when the item is missing, its data
    /// on success, the error for the status (``KeychainStatus``) otherwise.
    package static func read(item: String, copy: () -> (status: KeychainStatus, data: Data?)) throws -> Data? {
        let (status, data) = copy()
        if status == .itemNotFound { return nil }
        guard status == .success else { throw status.error(operation: "read", item: item) }
        guard let data else { throw AuthFlowError(.storage, "the Keychain item \(item) holds no data") }
        return data
    }

    /// A write: update the item (`SecItemUpdate`); add it when missing
    /// (`SecItemAdd`); when another process added it between the two,
    /// update theirs.
    package static func write(item: String, update: () -> KeychainStatus, add: () -> KeychainStatus) throws {
        var status = update()
        if status == .itemNotFound {
            status = add()
            if status == .duplicateItem { status = update() }
        }
        guard status == .success else { throw status.error(operation: "write", item: item) }
    }

    /// A delete (`SecItemDelete`): a missing item is already deleted.
    package static func delete(item: String, delete: () -> KeychainStatus) throws {
        let status = delete()
        guard status == .success || status == .itemNotFound else { throw status.error(operation: "delete", item: item) }
    }
}
