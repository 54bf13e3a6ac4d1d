import AuthFlow
package import Foundation

/// What the Apple layer sets on an `LAContext`, under names of its own (the
/// `LAContext` properties are unavailable on watchOS and tvOS).
package protocol AuthenticationContextControls: AnyObject {
    /// `interactionNotAllowed`: a Keychain call with this context fails with
    /// `errSecInteractionNotAllowed` instead of showing Face ID, Touch ID or
    /// the passcode (LAContext.h).
    var refusesInteraction: Bool { get set }
    /// `touchIDAuthenticationAllowableReuseDuration`: how long a biometric
    /// unlock *on the lock screen* opens the item without a prompt; it does
    /// not reuse prompts shown in the app (LAContext.h).
    var lockScreenUnlockReuse: TimeInterval { get set }
}

/// Whether the operations of the current task may show Face ID, Touch ID
/// or the passcode: only inside ``allowingPrompt(_:)``, which the Apple
/// layer's foreground calls (`AppleSignIn.restore()` and `signIn`) use. A
/// refresh started anywhere else — a background task, a timer — never
/// prompts.
package enum BiometricInteraction {
    @TaskLocal package static var allowed = false

    /// Runs `body` with prompts allowed.
    package static func allowingPrompt<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
        try await $allowed.withValue(true) { try await body() }
    }
}

/// The one authentication context of a biometric-protected session, shared
/// by everything the session does: reading the record (restore, the read
/// before each refresh), saving it, and signing DPoP proofs with a Secure
/// Enclave key. Apple: without `kSecUseAuthenticationContext` "a new context
/// will be created, used once, and discarded" — a prompt per call — while a
/// context that has authenticated opens the item again without one. So the
/// user is asked at most once per ``BiometricProtection/inAppReuseDuration``.
///
/// Only an operation that says so may prompt (``perform(interactive:_:outcome:)``
/// with `interactive: true`: ``KeychainCredentialStore/unlock()``, called by
/// `AppleSignIn.restore()` in the foreground); every other operation runs
/// with `interactionNotAllowed`, so nothing prompts in the background: an
/// operation outside the window fails with ``BiometricFailure/locked``.
///
/// Operations run one at a time, so a prompt is shown once and the
/// operations waiting behind it reuse its authentication.
package final class BiometricContexts<Context: AuthenticationContextControls>: @unchecked Sendable {
    private let lock = NSLock()
    private let reused: ReusedAuthenticationContext<Context>

    /// Contexts for `protection`, made by `make` (`LAContext()` on Apple platforms).
    package init(protection: BiometricProtection, now: @escaping @Sendable () -> Date = { Date() }, make: @escaping () -> Context) {
        let lockScreen = protection.lockScreenUnlockReuseDuration
        reused = ReusedAuthenticationContext(reuseDuration: protection.inAppReuseDuration, now: now) {
            let context = make()
            context.lockScreenUnlockReuse = lockScreen
            return context
        }
    }

    /// Runs `body` with the session's context, allowing a prompt only when
    /// `interactive`. `outcome` says whether the result shows the user
    /// authenticated (true: the reuse window starts), failed to (false: the
    /// context is replaced), or says nothing about it (nil: an item not found).
    /// A thrown error counts as a failed authentication.
    package func perform<T>(interactive: Bool, _ body: (Context) throws -> T, outcome: (T) -> Bool?) rethrows -> T {
        let interactive = interactive || BiometricInteraction.allowed
        return try lock.withLock {
            let context = reused.context()
            context.refusesInteraction = !interactive
            do {
                let value = try body(context)
                if let succeeded = outcome(value) { reused.record(context, succeeded: succeeded) }
                return value
            } catch {
                reused.record(context, succeeded: false)
                throw error
            }
        }
    }

}

/// What a Keychain status says about the authentication: it succeeded
/// (true), failed (false), or the status says nothing about it (nil).
package func authenticationOutcome(_ status: KeychainStatus) -> Bool? {
    switch status {
    case .success: true
    case .userCanceled, .authFailed, .interactionNotAllowed: false
    default: nil
    }
}

extension BiometricContexts {
    /// Signs a DPoP proof with a key that opens only with the session's
    /// context (a Secure Enclave key behind the same access control as the
    /// record), without a prompt: inside the reuse window the key signs at
    /// once; outside it, or in the background, the proof fails with
    /// ``BiometricFailure/locked`` instead of asking.
    package func signWithoutPrompt(_ sign: (Context) throws -> [UInt8]) throws -> [UInt8] {
        do {
            return try perform(interactive: false, sign, outcome: { _ in true })
        } catch let error as AuthFlowError {
            throw error
        } catch {
            throw AuthFlowError(
                .storage, "the Secure Enclave DPoP key could not sign without Face ID or Touch ID",
                recovery:
                    "Unlock the session in the foreground (AppleSignIn.restore() or KeychainCredentialStore.unlock()), then try again.",
                underlyingError: error)
        }
    }
}

/// The context type where there is no LocalAuthentication (tvOS): the
/// store never makes one, as biometric protection is not offered there.
package final class NoAuthenticationContext: AuthenticationContextControls {
    package var refusesInteraction = false
    package var lockScreenUnlockReuse: TimeInterval = 0
}
