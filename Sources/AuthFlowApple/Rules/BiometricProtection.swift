public import AuthFlow
public import Foundation

/// Opt-in protection of the stored session by Face ID, Touch ID or Optic ID:
/// the Keychain item (and a Secure Enclave DPoP key) get an access control
/// that asks for the user, and one authentication is reused for a while so
/// that refreshes don't prompt each time.
///
/// Set it in code (``KeychainCredentialStore/init(key:service:accessGroup:appGroup:accessibility:biometricProtection:)``)
/// or with the `BiometricProtection` key of the `AuthFlow` Info.plist
/// dictionary (`BiometryCurrentSet` or `UserPresence`) and, optionally,
/// `BiometricReuseSeconds`. The app's Info.plist must also have
/// `NSFaceIDUsageDescription`.
public struct BiometricProtection: Sendable, Equatable {
    /// Who may open the item.
    public enum Policy: String, Sendable, Equatable {
        /// Only the biometrics enrolled now (`.biometryCurrentSet`): adding or
        /// removing a finger or face makes the item unreadable, and the user
        /// signs in again.
        case biometryCurrentSet = "BiometryCurrentSet"
        /// Biometrics or the device passcode (`.userPresence`).
        case userPresence = "UserPresence"
    }

    /// The longest reuse Apple allows (`LATouchIDAuthenticationMaximumAllowableReuseDuration`, 5 minutes).
    public static let maximumReuseDuration: TimeInterval = 300

    /// Who may open the item.
    public let policy: Policy
    /// How long, in seconds, one authentication is reused for later reads
    /// before the user is asked again (0 to ``maximumReuseDuration``).
    public let reuseDuration: TimeInterval

    /// Protection with `policy`, reusing an authentication for `reuseDuration` seconds.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when `reuseDuration`
    ///   is negative, not finite or above ``maximumReuseDuration``.
    public init(policy: Policy, reuseDuration: TimeInterval = 60) throws {
        guard reuseDuration.isFinite, (0...Self.maximumReuseDuration).contains(reuseDuration) else {
            throw AuthFlowError(
                .configuration, "the biometric reuse duration must be between 0 and 300 seconds",
                recovery: "Set BiometricReuseSeconds (or reuseDuration) to at most 300.")
        }
        self.policy = policy
        self.reuseDuration = reuseDuration
    }

    /// The protection the `AuthFlow` Info.plist dictionary asks for; nil without a `BiometricProtection` key.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` naming a malformed key.
    public init?(dictionary: [String: Any]) throws {
        guard let value = dictionary["BiometricProtection"] else {
            if dictionary["BiometricReuseSeconds"] != nil {
                throw AuthFlowError(
                    .configuration, "BiometricReuseSeconds is set without BiometricProtection",
                    recovery: "Add BiometricProtection (BiometryCurrentSet or UserPresence) to the AuthFlow Info.plist dictionary.")
            }
            return nil
        }
        guard let text = value as? String, let policy = Policy(rawValue: text) else {
            throw AuthFlowError(
                .configuration, "BiometricProtection must be BiometryCurrentSet or UserPresence",
                recovery: "Fix BiometricProtection in the AuthFlow Info.plist dictionary.")
        }
        var reuse: TimeInterval = 60
        if let seconds = dictionary["BiometricReuseSeconds"] {
            guard let number = seconds as? Int else {
                throw AuthFlowError(
                    .configuration, "BiometricReuseSeconds must be a number of seconds",
                    recovery: "Set BiometricReuseSeconds to an integer between 0 and 300.")
            }
            reuse = TimeInterval(number)
        }
        try self.init(policy: policy, reuseDuration: reuse)
    }
}

/// Why a biometric-protected session could not be read, as the
/// ``AuthFlowError/underlyingError`` of the error that says so.
public enum BiometricFailure: Error, Sendable, Equatable {
    /// The user cancelled the Face ID / Touch ID prompt (`errSecUserCanceled`).
    case promptCancelled
    /// Authentication failed, or biometry is locked out after too many
    /// failures (`errSecAuthFailed`): the passcode unlocks it again.
    case authenticationFailed
    /// The enrolled biometrics changed: a `.biometryCurrentSet` item is gone for good.
    case enrolmentChanged

    /// The failure for a read of a protected item that answered `status`,
    /// where `markerPresent` says whether the unprotected marker stored beside
    /// the item says a session was saved. Nil when `status` is not a biometric failure.
    package static func reading(status: KeychainStatus, markerPresent: Bool) -> BiometricFailure? {
        switch status {
        case .userCanceled: .promptCancelled
        case .authFailed: .authenticationFailed
        case .itemNotFound where markerPresent: .enrolmentChanged
        default: nil
        }
    }

    /// The error the store throws.
    public var error: AuthFlowError {
        switch self {
        case .promptCancelled:
            AuthFlowError(.cancelled, "the Face ID or Touch ID prompt was cancelled", underlyingError: self)
        case .authenticationFailed:
            AuthFlowError(
                .storage, "biometric authentication failed or is locked out",
                recovery: "Unlock the device with its passcode to enable Face ID or Touch ID again, then try again.",
                underlyingError: self)
        case .enrolmentChanged:
            AuthFlowError(
                .reauthenticationRequired, "the enrolled Face ID or Touch ID changed, so the stored session cannot be opened",
                recovery: "Sign in again.", remedy: .signInAgain, underlyingError: self)
        }
    }
}

/// One authentication context reused for ``BiometricProtection/reuseDuration``
/// after it first opened the item, then replaced, so that refreshes in that
/// window don't prompt and the user is asked again after it. A failed read
/// replaces it at once. `Context` is `LAContext` on Apple platforms.
package final class ReusedAuthenticationContext<Context: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private let make: () -> Context
    private let reuseDuration: TimeInterval
    private var current: (context: Context, authenticatedAt: Date?)?

    package init(reuseDuration: TimeInterval, make: @escaping () -> Context) {
        self.reuseDuration = reuseDuration
        self.make = make
    }

    /// The context to read with at `now`.
    package func context(now: Date = Date()) -> Context {
        lock.withLock {
            if let current, current.authenticatedAt.map({ now.timeIntervalSince($0) < reuseDuration }) ?? true {
                return current.context
            }
            let fresh = make()
            current = (fresh, nil)
            return fresh
        }
    }

    /// Records that `context` opened the item at `now` (starts its window), or failed.
    package func record(_ context: Context, succeeded: Bool, now: Date = Date()) {
        lock.withLock {
            guard let current, current.context === context else { return }
            if succeeded {
                if current.authenticatedAt == nil { self.current = (context, now) }
            } else {
                self.current = nil
            }
        }
    }
}

/// Reads a biometric-protected item: with the reused context, mapping the
/// Keychain's answer to the typed errors above (an item missing while its
/// unprotected marker is present means the enrolment changed).
///
/// - Parameters:
///   - read: one Keychain read with a context: its status and data.
///   - markerPresent: whether the unprotected marker item exists.
package func readProtectedItem<Context: AnyObject>(
    contexts: ReusedAuthenticationContext<Context>, item: String,
    markerPresent: () throws -> Bool,
    read: (Context) -> (status: KeychainStatus, data: Data?)
) throws -> Data? {
    let context = contexts.context()
    let (status, data) = read(context)
    contexts.record(context, succeeded: status == .success)
    if status == .success { return data }
    if let failure = BiometricFailure.reading(status: status, markerPresent: try status == .itemNotFound && markerPresent()) {
        throw failure.error
    }
    if status == .itemNotFound { return nil }
    throw status.error(operation: "read", item: item)
}
