import Foundation

@testable import AuthFlowApple

/// A behavioural stand-in for the Keychain's `SecItem` calls on items with
/// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly`, answering with the status
/// codes Apple documents: `errSecInteractionNotAllowed` for every call while
/// the device is locked, `errSecItemNotFound`, and `errSecDuplicateItem`
/// when another process adds the item first. Sources: the
/// `kSecAttrAccessibleWhenUnlockedThisDeviceOnly` documentation (readable
/// only while the device is unlocked), the `errSecInteractionNotAllowed`,
/// `errSecItemNotFound` and `errSecDuplicateItem` result codes, and the
/// `SecItemAdd` documentation (a duplicate add fails instead of replacing).
final class SimulatedKeychain: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String: Data] = [:]
    private var locked = false
    /// Another process adds this account's item just before the next `add`.
    private var racingAdd: (account: String, data: Data)?

    func lockDevice() { lock.withLock { locked = true } }
    func unlockDevice() { lock.withLock { locked = false } }
    func anotherProcessWillAdd(_ account: String, _ data: Data) { lock.withLock { racingAdd = (account, data) } }
    func item(_ account: String) -> Data? { lock.withLock { items[account] } }

    func copyMatching(_ account: String) -> (status: KeychainStatus, data: Data?) {
        lock.withLock {
            if locked { return (.interactionNotAllowed, nil) }
            guard let data = items[account] else { return (.itemNotFound, nil) }
            return (.success, data)
        }
    }

    func update(_ account: String, _ data: Data) -> KeychainStatus {
        lock.withLock {
            if locked { return .interactionNotAllowed }
            guard items[account] != nil else { return .itemNotFound }
            items[account] = data
            return .success
        }
    }

    func add(_ account: String, _ data: Data) -> KeychainStatus {
        lock.withLock {
            if locked { return .interactionNotAllowed }
            if let race = racingAdd, race.account == account {
                items[account] = race.data
                racingAdd = nil
            }
            if items[account] != nil { return .duplicateItem }
            items[account] = data
            return .success
        }
    }

    func delete(_ account: String) -> KeychainStatus {
        lock.withLock {
            if locked { return .interactionNotAllowed }
            return items.removeValue(forKey: account) == nil ? .itemNotFound : .success
        }
    }
}
