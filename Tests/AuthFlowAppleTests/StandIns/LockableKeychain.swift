import AuthFlow
@testable import AuthFlowApple
import Foundation

/// A behavioural stand-in for a Keychain item with
/// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`: while the device is locked
/// every read and write answers `errSecInteractionNotAllowed`, mapped by the
/// Apple layer's own rule (``KeychainStatus``), until ``unlock()``.
final class LockableKeychain: CredentialStore {
    private let state = LockedValue<(record: SessionRecord?, locked: Bool, writes: Int)>((nil, false, 0))

    init(_ record: SessionRecord?) {
        state.withLock { $0.record = record }
    }

    func lock() { state.withLock { $0.locked = true } }
    func unlock() { state.withLock { $0.locked = false } }
    var writes: Int { state.withLock { $0.writes } }

    func load() async throws -> SessionRecord? {
        try state.withLock { state throws(AuthFlowError) -> SessionRecord? in
            if state.locked { throw KeychainStatus.interactionNotAllowed.error(operation: "read", item: "AuthFlow") }
            return state.record
        }
    }

    func save(_ record: SessionRecord) async throws {
        try state.withLock { state throws(AuthFlowError) in
            if state.locked { throw KeychainStatus.interactionNotAllowed.error(operation: "write", item: "AuthFlow") }
            state.record = record
            state.writes += 1
        }
    }

    func delete() async throws {
        try state.withLock { state throws(AuthFlowError) in
            if state.locked { throw KeychainStatus.interactionNotAllowed.error(operation: "delete", item: "AuthFlow") }
            state.record = nil
        }
    }
}
