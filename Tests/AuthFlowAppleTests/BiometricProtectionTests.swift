import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@Suite struct BiometricProtectionTests {
    @Test func theInfoPlistKeysChooseThePolicyAndTheReuseWindow() throws {
        let protection = try #require(
            try BiometricProtection(dictionary: [
                "BiometricProtection": "BiometryCurrentSet",
                "BiometricReuseSeconds": 120,
            ]))
        #expect(protection.policy == .biometryCurrentSet)
        #expect(protection.inAppReuseDuration == 120)
        #expect(try BiometricProtection(dictionary: ["BiometricProtection": "UserPresence"])?.inAppReuseDuration == 60)
        #expect(try BiometricProtection(dictionary: [:]) == nil, "opt-in: off without the key")
    }

    @Test(
        arguments: [
            ["BiometricProtection": "FaceID"], ["BiometricProtection": true],
            ["BiometricProtection": "UserPresence", "BiometricReuseSeconds": 301],
            ["BiometricProtection": "UserPresence", "BiometricReuseSeconds": "60"],
            ["BiometricReuseSeconds": 60],
        ] as [[String: any Sendable]])
    func malformedKeysAreConfigurationErrors(_ dictionary: [String: any Sendable]) throws {
        let error = try #require(throws: AuthFlowError.self) { try BiometricProtection(dictionary: dictionary) }
        #expect(error.category == .configuration)
    }

    @Test func theSettingsCarryTheProtection() throws {
        let settings = try AppleSignInSettings(dictionary: [
            "Issuer": "https://idp.example", "ClientID": "app",
            "RedirectURI": "com.example.app:/cb",
            "BiometricProtection": "UserPresence",
        ])
        #expect(settings.biometricProtection?.policy == .userPresence)
    }

    func launch(_ keychain: ProtectedKeychain) throws -> KeychainSessionItems<ProtectedKeychain, ProtectedKeychain.Context> {
        let contexts = BiometricContexts<ProtectedKeychain.Context>(
            protection: try BiometricProtection(policy: .biometryCurrentSet), now: { keychain.now },
            make: { ProtectedKeychain.Context() })
        return KeychainSessionItems(
            calls: keychain, keys: ProtectedKeychain.keys, service: "AuthFlow", account: "session", accessGroup: nil,
            accessible: "cku", protection: (contexts, { "biometryCurrentSet" }))
    }

    @Test func afterTheWindowTheUserIsAskedAgain() throws {
        let keychain = ProtectedKeychain()
        let items = try launch(keychain)
        try items.writeRecord(Data("record".utf8))
        _ = try items.readRecord(interactive: true)
        keychain.now = keychain.now.addingTimeInterval(59)
        _ = try items.readRecord(interactive: true)
        #expect(keychain.prompts == 1)
        keychain.now = keychain.now.addingTimeInterval(2)
        _ = try items.readRecord(interactive: true)
        #expect(keychain.prompts == 2)
    }

    @Test func aCancelledPromptIsCancelledAndTheNextReadAsksAgain() throws {
        let keychain = ProtectedKeychain()
        let items = try launch(keychain)
        try items.writeRecord(Data("record".utf8))
        keychain.answers = [.cancel]
        let error = try #require(throws: AuthFlowError.self) { try items.readRecord(interactive: true) }
        #expect(error.category == .cancelled)
        #expect(error.underlyingError as? BiometricFailure == .promptCancelled)
        #expect(try items.readRecord(interactive: true) == Data("record".utf8))
        #expect(keychain.prompts == 2)
    }

    @Test func lockoutIsATypedRetryableError() throws {
        let keychain = ProtectedKeychain()
        let items = try launch(keychain)
        try items.writeRecord(Data("record".utf8))
        keychain.answers = [.lockedOut]
        let error = try #require(throws: AuthFlowError.self) { try items.readRecord(interactive: true) }
        #expect(error.category == .storage)
        #expect(error.underlyingError as? BiometricFailure == .authenticationFailed)
        #expect(error.recovery?.contains("passcode") == true)
    }

    @Test func anEnrolmentChangeNeedsASignIn() throws {
        let keychain = ProtectedKeychain()
        let items = try launch(keychain)
        try items.writeRecord(Data("record".utf8))
        keychain.changeEnrolment()
        let error = try #require(throws: AuthFlowError.self) { try items.readRecord(interactive: true) }
        #expect(error.category == .reauthenticationRequired)
        #expect(error.underlyingError as? BiometricFailure == .enrolmentChanged)
    }

    @Test func noSessionAtAllIsNoSessionNotAnEnrolmentChange() throws {
        #expect(try launch(ProtectedKeychain()).readRecord(interactive: true) == nil)
    }
}
