import Foundation

@testable import AuthFlowApple

/// A behavioural stand-in for the Keychain's `SecItem` calls on items with a
/// biometric access control, and for the `LAContext` that opens them, as
/// Apple documents them:
///
/// - `SecItemUpdate` takes "only real keychain attributes ... (no 'meta'
///   attributes are allowed.)" in `attributesToUpdate` (SecItem.h; the
///   `SecItemUpdate` documentation page): a `kSecUse…`, `kSecReturn…` or
///   `kSecMatch…` key there fails with `errSecParam` (-50).
/// - Reading or updating a protected item authenticates with the query's
///   `kSecUseAuthenticationContext`; without one "a new context will be
///   created, used once, and discarded" (`kSecUseAuthenticationContext`
///   documentation): a prompt each time. A context that has authenticated
///   opens the item again without a prompt.
/// - A context with `interactionNotAllowed` makes "the keychain call ...
///   fail with errSecInteractionNotAllowed instead of displaying the
///   authentication UI" (LAContext.h).
/// - `touchIDAuthenticationAllowableReuseDuration` accepts a biometric
///   unlock *of the device on the lock screen* within that many seconds,
///   and "does not allow reusing previous biometric matches in
///   application" (LAContext.h).
/// - Adding a protected item needs no authentication: the access control
///   gates later use (Apple sample "Accessing Keychain Items with Face ID or
///   Touch ID": the item is readable "only after a successful user
///   authentication"). Deleting is modelled without authentication as the
///   `SecItemDelete` page describes none (an on-device check in
///   SigningInOnIOS.md's checklist).
/// - A Secure Enclave key behind the same access control signs under the
///   same rules (`SecureEnclave.P256.Signing.PrivateKey(dataRepresentation:authenticationContext:)`).
final class ProtectedKeychain: KeychainCalls, @unchecked Sendable {
    /// An `LAContext`.
    final class Context: AuthenticationContextControls {
        var refusesInteraction = false
        var lockScreenUnlockReuse: TimeInterval = 0
        var authenticated = false
    }

    /// The documented raw values of the `kSec…` constants.
    static let keys = KeychainKeys(
        itemClass: "class", genericPassword: "genp", service: "svce", account: "acct", accessGroup: "agrp",
        useDataProtectionKeychain: "nleg", valueData: "v_Data", returnData: "r_Data", matchLimit: "m_Limit",
        matchLimitOne: "m_LimitOne", accessible: "pdmn", accessControl: "accc", useAuthenticationContext: "u_AuthCtx")
    /// Keys that are not item attributes (`kSecUse…`, `kSecReturn…`, `kSecMatch…`).
    static let metaKeys: Set<String> = ["u_AuthCtx", "u_AuthUI", "nleg", "r_Data", "r_Attributes", "r_Ref", "m_Limit"]

    /// How the user answers a prompt: approve; cancel (`errSecUserCanceled`);
    /// fail or be locked out (`errSecAuthFailed`).
    enum Answer { case approve, cancel, lockedOut }
    var answers: [Answer] = []

    private let lock = NSLock()
    private var items: [String: (data: Data, protected: Bool)] = [:]
    private var lockScreenUnlock: Date?
    private(set) var prompts = 0
    private(set) var updateAttributeKeys: [Set<String>] = []
    var now: Date = Date(timeIntervalSince1970: 1_000_000)

    /// The user unlocks the phone with Face ID on the lock screen `secondsAgo` before now.
    func deviceUnlockedOnLockScreen(secondsAgo: TimeInterval) { lock.withLock { lockScreenUnlock = now.addingTimeInterval(-secondsAgo) } }
    func data(_ account: String) -> Data? { lock.withLock { items[account]?.data } }
    /// The user adds a finger or a face: the system drops `.biometryCurrentSet` items.
    func changeEnrolment() { lock.withLock { items = items.filter { !$0.value.protected } } }
    func accounts() -> Set<String> { lock.withLock { Set(items.keys) } }

    /// Authenticates `context` (or a new one) as the system does.
    private func authenticate(_ context: Context?) -> KeychainStatus {
        let context = context ?? Context()
        if context.authenticated { return .success }
        if let unlock = lockScreenUnlock, now.timeIntervalSince(unlock) <= context.lockScreenUnlockReuse {
            context.authenticated = true
            return .success
        }
        if context.refusesInteraction { return .interactionNotAllowed }
        prompts += 1
        switch answers.isEmpty ? .approve : answers.removeFirst() {
        case .approve:
            context.authenticated = true
            return .success
        case .cancel: return .userCanceled
        case .lockedOut: return .authFailed
        }
    }

    func copyMatching(_ query: [String: Any]) -> (status: KeychainStatus, data: Data?) {
        lock.withLock {
            guard let account = query["acct"] as? String, let item = items[account] else { return (.itemNotFound, nil) }
            if item.protected {
                let status = authenticate(query["u_AuthCtx"] as? Context)
                guard status == .success else { return (status, nil) }
            }
            return (.success, item.data)
        }
    }

    func add(_ attributes: [String: Any]) -> KeychainStatus {
        lock.withLock {
            guard let account = attributes["acct"] as? String, let data = attributes["v_Data"] as? Data else { return .parameter }
            if items[account] != nil { return .duplicateItem }
            items[account] = (data, attributes["accc"] != nil)
            return .success
        }
    }

    func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> KeychainStatus {
        lock.withLock {
            updateAttributeKeys.append(Set(attributesToUpdate.keys))
            if !Self.metaKeys.isDisjoint(with: attributesToUpdate.keys) { return .parameter }
            guard let account = query["acct"] as? String, let item = items[account] else { return .itemNotFound }
            if item.protected {
                let status = authenticate(query["u_AuthCtx"] as? Context)
                guard status == .success else { return status }
            }
            if let data = attributesToUpdate["v_Data"] as? Data { items[account] = (data, item.protected) }
            return .success
        }
    }

    func delete(_ query: [String: Any]) -> KeychainStatus {
        lock.withLock {
            guard let account = query["acct"] as? String else { return .parameter }
            return items.removeValue(forKey: account) == nil ? .itemNotFound : .success
        }
    }

    /// A Secure Enclave key behind the same access control: signs after the
    /// same authentication, with `context` (nil: a new context per call).
    func sign(_ input: [UInt8], context: Context?) throws -> [UInt8] {
        try lock.withLock {
            let status = authenticate(context)
            guard status == .success else { throw StandInSigningError(status: status) }
            return input.reversed()
        }
    }

    struct StandInSigningError: Error { let status: KeychainStatus }
}
