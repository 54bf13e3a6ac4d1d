import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

/// A biometric-protected session over the stand-in Keychain: what the user
/// sees (prompts) and what survives (the saved record), as Apple documents
/// the Keychain and `LAContext`.
@Suite struct BiometricSessionTests {
    typealias Items = KeychainSessionItems<ProtectedKeychain, ProtectedKeychain.Context>

    /// One launch of the app: the store's items and their contexts.
    func launch(_ keychain: ProtectedKeychain, protection: BiometricProtection? = nil) throws -> Items {
        let protection = try protection ?? BiometricProtection(policy: .biometryCurrentSet)
        let contexts = BiometricContexts<ProtectedKeychain.Context>(
            protection: protection, now: { keychain.now }, make: { ProtectedKeychain.Context() })
        return Items(
            calls: keychain, keys: ProtectedKeychain.keys, service: "AuthFlow", account: "session", accessGroup: nil,
            accessible: "cku", protection: (contexts, { "biometryCurrentSet" }))
    }

    /// A DPoP proof with a Secure Enclave key opened with the session's context.
    func proof(_ items: Items, _ keychain: ProtectedKeychain) throws -> [UInt8] {
        try #require(items.protection).contexts.signWithoutPrompt { try keychain.sign([1, 2, 3], context: $0) }
    }

    /// The foreground restore: the one place a prompt may show.
    func restore(_ items: Items) async throws -> Data? {
        try await BiometricInteraction.allowingPrompt { try items.readRecord(interactive: false) }
    }

    @Test func restoreRefreshSaveProofsAndSignOutPromptOncePerWindow() async throws {
        let keychain = ProtectedKeychain()
        let items = try launch(keychain)
        try items.writeRecord(Data("v1".utf8)) // sign-in's save: an add, no prompt
        #expect(keychain.prompts == 0)
        #expect(try await restore(items) == Data("v1".utf8))
        for round in 2...4 {
            #expect(try items.readRecord(interactive: false) == Data("v\(round - 1)".utf8)) // the read before a refresh
            _ = try proof(items, keychain) // the token request's DPoP proof
            try items.writeRecord(Data("v\(round)".utf8)) // the rotated tokens
            _ = try proof(items, keychain) // an API call
        }
        try items.deleteRecord() // sign-out
        #expect(keychain.prompts == 1)
        #expect(keychain.accounts().isEmpty)
    }

    @Test func secItemUpdateGetsOnlyRealAttributes() throws {
        let keychain = ProtectedKeychain()
        let items = try launch(keychain)
        try items.writeRecord(Data("v1".utf8))
        _ = try items.readRecord(interactive: true)
        try items.writeRecord(Data("v2".utf8))
        #expect(keychain.data("session") == Data("v2".utf8))
        #expect(keychain.updateAttributeKeys.allSatisfy { $0.isDisjoint(with: ProtectedKeychain.metaKeys) })
        #expect(!keychain.updateAttributeKeys.isEmpty)
    }

    @Test func nothingPromptsInTheBackground() throws {
        let keychain = ProtectedKeychain()
        try launch(keychain).writeRecord(Data("v1".utf8))
        let items = try launch(keychain) // a background launch: no restore in the foreground
        let read = try #require(throws: AuthFlowError.self) { try items.readRecord(interactive: false) }
        #expect(read.underlyingError as? BiometricFailure == .locked)
        #expect(read.category == .storage)
        let signing = try #require(throws: AuthFlowError.self) { try proof(items, keychain) }
        #expect(signing.category == .storage)
        #expect(keychain.prompts == 0)
    }

    @Test func aSaveThatCannotOpenTheRecordKeepsTheRotatedTokensAcrossARelaunch() async throws {
        let keychain = ProtectedKeychain()
        let first = try launch(keychain)
        try first.writeRecord(Data("RT-1".utf8))
        _ = try await restore(first)
        keychain.now = keychain.now.addingTimeInterval(61) // the in-app window is over, the app is in the background
        try first.writeRecord(Data("RT-2".utf8)) // the refresh's save: must neither prompt nor fail
        #expect(keychain.prompts == 1)
        // The app is terminated; the next launch restores in the foreground.
        let second = try launch(keychain)
        #expect(try await restore(second) == Data("RT-2".utf8))
        #expect(keychain.prompts == 2)
        #expect(keychain.data("session") == Data("RT-2".utf8))
        #expect(keychain.data("session pending") == nil)
        // A later save inside the window updates the record in place.
        try second.writeRecord(Data("RT-3".utf8))
        #expect(try second.readRecord(interactive: false) == Data("RT-3".utf8))
        #expect(keychain.prompts == 2)
    }

    @Test func aSecondPendingSaveReplacesTheFirst() async throws {
        let keychain = ProtectedKeychain()
        let first = try launch(keychain)
        try first.writeRecord(Data("RT-1".utf8))
        try first.writeRecord(Data("RT-2".utf8)) // never unlocked: pending
        try first.writeRecord(Data("RT-3".utf8)) // pending again
        #expect(try await restore(try launch(keychain)) == Data("RT-3".utf8))
        #expect(keychain.prompts == 1)
    }

    @Test func aLockScreenUnlockDoesNotOpenTheSessionByDefault() async throws {
        let keychain = ProtectedKeychain()
        try launch(keychain).writeRecord(Data("v1".utf8))
        keychain.deviceUnlockedOnLockScreen(secondsAgo: 10)
        let items = try launch(keychain)
        _ = try await restore(items)
        #expect(keychain.prompts == 1, "whoever unlocked the phone still faces the app's prompt")
    }

    @Test func lockScreenReuseIsItsOwnSetting() async throws {
        let keychain = ProtectedKeychain()
        try launch(keychain).writeRecord(Data("v1".utf8))
        keychain.deviceUnlockedOnLockScreen(secondsAgo: 10)
        let protection = try BiometricProtection(policy: .userPresence, inAppReuseDuration: 0, lockScreenUnlockReuseDuration: 30)
        _ = try await restore(try launch(keychain, protection: protection))
        #expect(keychain.prompts == 0)
        #expect(protection.inAppReuseDuration == 0)
    }

    @Test func theInfoPlistNamesBothReuses() throws {
        let protection = try #require(
            try BiometricProtection(dictionary: [
                "BiometricProtection": "UserPresence", "BiometricReuseSeconds": 120, "BiometricLockScreenReuseSeconds": 15,
            ]))
        #expect(protection.inAppReuseDuration == 120)
        #expect(protection.lockScreenUnlockReuseDuration == 15)
        let defaults = try #require(try BiometricProtection(dictionary: ["BiometricProtection": "UserPresence"]))
        #expect(defaults.lockScreenUnlockReuseDuration == 0)
        #expect(throws: AuthFlowError.self) {
            try BiometricProtection(dictionary: ["BiometricProtection": "UserPresence", "BiometricLockScreenReuseSeconds": 301])
        }
        #expect(throws: AuthFlowError.self) { try BiometricProtection(dictionary: ["BiometricLockScreenReuseSeconds": 10]) }
    }
}

/// The Keychain of an app signed without a development team.
@Suite struct KeychainAccessCheckTests {
    /// The data-protection Keychain refuses an app without the entitlements
    /// signing gives it: `errSecMissingEntitlement` (-34018; TN3137 "On Mac
    /// keychain APIs and implementations").
    struct UnsignedAppKeychain: KeychainCalls {
        func copyMatching(_ query: [String: Any]) -> (status: KeychainStatus, data: Data?) { (.missingEntitlement, nil) }
        func add(_ attributes: [String: Any]) -> KeychainStatus { .missingEntitlement }
        func update(_ query: [String: Any], _ attributesToUpdate: [String: Any]) -> KeychainStatus { .missingEntitlement }
        func delete(_ query: [String: Any]) -> KeychainStatus { .missingEntitlement }
    }

    func items<Calls: KeychainCalls>(_ calls: Calls) -> KeychainSessionItems<Calls, ProtectedKeychain.Context> {
        KeychainSessionItems(
            calls: calls, keys: ProtectedKeychain.keys, service: "AuthFlow", account: "session", accessGroup: nil,
            accessible: "cku", protection: nil)
    }

    @Test func anAppWithoutATeamIsToldBeforeTheBrowserOpens() throws {
        let error = try #require(throws: AuthFlowError.self) { try items(UnsignedAppKeychain()).checkAccess() }
        #expect(error.category == .configuration)
        #expect(error.message.contains("not signed with a development team"))
        #expect(error.recovery?.contains("TEAMID.") == true)
    }

    @Test func aSignedAppPassesAndLeavesNothingBehind() throws {
        let keychain = ProtectedKeychain()
        try items(keychain).checkAccess()
        #expect(keychain.accounts().isEmpty)
    }
}
