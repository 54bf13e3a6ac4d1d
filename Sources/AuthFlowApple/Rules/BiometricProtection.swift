public import AuthFlow
public import Foundation

/// Opt-in protection of the stored session by Face ID, Touch ID or Optic ID:
/// the Keychain item (and a Secure Enclave DPoP key) get an access control
/// that asks for the user, and one authentication opens everything the
/// session does for a while.
///
/// Two reuse settings, each named for what it reuses:
///
/// - ``inAppReuseDuration``: after the user authenticated *in the app*, how
///   long restoring, refreshing, saving, DPoP proofs and sign-out go on
///   without asking again (default 60 seconds);
/// - ``lockScreenUnlockReuseDuration``: how long a Face ID or Touch ID
///   unlock *of the device on the lock screen* opens the session without a
///   prompt (`touchIDAuthenticationAllowableReuseDuration`; default 0: it
///   never does, so whoever unlocks the phone still faces the app's prompt).
///
/// Set it in code (``KeychainCredentialStore/init(key:service:accessGroup:appGroup:accessibility:biometricProtection:)``)
/// or with the `BiometricProtection` key of the `AuthFlow` Info.plist
/// dictionary (`BiometryCurrentSet` or `UserPresence`) and, optionally,
/// `BiometricReuseSeconds` (in-app) and `BiometricLockScreenReuseSeconds`.
/// The app's Info.plist must also have `NSFaceIDUsageDescription`.
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
    /// How long, in seconds, one authentication in the app is reused by
    /// everything the session does before the user is asked again (0 to
    /// ``maximumReuseDuration``).
    public let inAppReuseDuration: TimeInterval
    /// How long, in seconds, a biometric unlock of the device on the lock
    /// screen opens the session without a prompt (0 to
    /// ``maximumReuseDuration``; default 0, never).
    public let lockScreenUnlockReuseDuration: TimeInterval

    /// The in-app reuse, under its former name.
    @available(*, deprecated, renamed: "inAppReuseDuration")
    public var reuseDuration: TimeInterval { inAppReuseDuration }

    /// Protection with `policy`, reusing an authentication in the app for
    /// `inAppReuseDuration` seconds and a lock-screen unlock for
    /// `lockScreenUnlockReuseDuration` seconds.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when a duration
    ///   is negative, not finite or above ``maximumReuseDuration``.
    public init(policy: Policy, inAppReuseDuration: TimeInterval = 60, lockScreenUnlockReuseDuration: TimeInterval = 0) throws {
        for (duration, key) in [
            (inAppReuseDuration, "BiometricReuseSeconds"), (lockScreenUnlockReuseDuration, "BiometricLockScreenReuseSeconds"),
        ] {
            guard duration.isFinite, (0...Self.maximumReuseDuration).contains(duration) else {
                throw AuthFlowError(
                    .configuration, "the biometric reuse duration must be between 0 and 300 seconds",
                    recovery: "Set \(key) to at most 300.")
            }
        }
        self.policy = policy
        self.inAppReuseDuration = inAppReuseDuration
        self.lockScreenUnlockReuseDuration = lockScreenUnlockReuseDuration
    }

    /// Protection with `policy`, reusing an in-app authentication for `reuseDuration` seconds.
    @available(*, deprecated, renamed: "init(policy:inAppReuseDuration:lockScreenUnlockReuseDuration:)")
    public init(policy: Policy, reuseDuration: TimeInterval) throws {
        try self.init(policy: policy, inAppReuseDuration: reuseDuration)
    }

    /// The protection the `AuthFlow` Info.plist dictionary asks for; nil without a `BiometricProtection` key.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` naming a malformed key.
    public init?(dictionary: [String: Any]) throws {
        guard let value = dictionary["BiometricProtection"] else {
            for key in ["BiometricReuseSeconds", "BiometricLockScreenReuseSeconds"] where dictionary[key] != nil {
                throw AuthFlowError(
                    .configuration, "\(key) is set without BiometricProtection",
                    recovery: "Add BiometricProtection (BiometryCurrentSet or UserPresence) to the AuthFlow Info.plist dictionary.")
            }
            return nil
        }
        guard let text = value as? String, let policy = Policy(rawValue: text) else {
            throw AuthFlowError(
                .configuration, "BiometricProtection must be BiometryCurrentSet or UserPresence",
                recovery: "Fix BiometricProtection in the AuthFlow Info.plist dictionary.")
        }
        func seconds(_ key: String, default value: TimeInterval) throws -> TimeInterval {
            guard let seconds = dictionary[key] else { return value }
            guard let number = seconds as? Int else {
                throw AuthFlowError(
                    .configuration, "\(key) must be a number of seconds",
                    recovery: "Set \(key) to an integer between 0 and 300.")
            }
            return TimeInterval(number)
        }
        try self.init(
            policy: policy, inAppReuseDuration: try seconds("BiometricReuseSeconds", default: 60),
            lockScreenUnlockReuseDuration: try seconds("BiometricLockScreenReuseSeconds", default: 0))
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
    /// Opening the session needs Face ID, Touch ID or the passcode and the
    /// operation may not ask (it runs in the background, or outside the
    /// in-app reuse window): `errSecInteractionNotAllowed` with
    /// `interactionNotAllowed` set. Unlock it in the foreground.
    case locked

    /// The failure for a read of a protected item that answered `status`,
    /// where `markerPresent` says whether the unprotected marker stored beside
    /// the item says a session was saved. Nil when `status` is not a biometric failure.
    package static func reading(status: KeychainStatus, markerPresent: Bool) -> BiometricFailure? {
        switch status {
        case .userCanceled: .promptCancelled
        case .authFailed: .authenticationFailed
        case .itemNotFound where markerPresent: .enrolmentChanged
        case .interactionNotAllowed: .locked
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
        case .locked:
            AuthFlowError(
                .storage, "the session is locked behind Face ID or Touch ID and this operation may not ask for it",
                recovery:
                    "Unlock the session in the foreground (AppleSignIn.restore() or KeychainCredentialStore.unlock()), then try again.",
                underlyingError: self)
        }
    }
}

/// One authentication context reused for ``BiometricProtection/inAppReuseDuration``
/// after it first opened the item, then replaced, so that refreshes in that
/// window don't prompt and the user is asked again after it. A failed read
/// replaces it at once. `Context` is `LAContext` on Apple platforms.
package final class ReusedAuthenticationContext<Context: AnyObject>: @unchecked Sendable {
    private let lock = NSLock()
    private let make: () -> Context
    private let reuseDuration: TimeInterval
    private let clock: @Sendable () -> Date
    private var current: (context: Context, authenticatedAt: Date?)?

    package init(reuseDuration: TimeInterval, now: @escaping @Sendable () -> Date = { Date() }, make: @escaping () -> Context) {
        self.reuseDuration = reuseDuration
        self.clock = now
        self.make = make
    }

    /// The context to read with at `now`.
    package func context(now: Date? = nil) -> Context {
        let now = now ?? clock()
        return lock.withLock {
            if let current, current.authenticatedAt.map({ now.timeIntervalSince($0) < reuseDuration }) ?? true {
                return current.context
            }
            let fresh = make()
            current = (fresh, nil)
            return fresh
        }
    }

    /// Records that `context` opened the item at `now` (starts its window), or failed.
    package func record(_ context: Context, succeeded: Bool, now: Date? = nil) {
        let now = now ?? clock()
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
