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
        #expect(protection.reuseDuration == 120)
        #expect(try BiometricProtection(dictionary: ["BiometricProtection": "UserPresence"])?.reuseDuration == 60)
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

    func reader(
        _ item: BiometricKeychainItem, reuse: TimeInterval = 60,
        clock: @escaping () -> Date = { Date() }
    ) -> () throws -> Data? {
        let contexts = ReusedAuthenticationContext(reuseDuration: reuse) { BiometricKeychainItem.Context() }
        return {
            try readProtectedItem(
                contexts: contexts, item: "AuthFlow", markerPresent: { item.marker }, read: { context in item.read(context) })
        }
    }

    @Test func refreshesInsideTheReuseWindowPromptOnce() throws {
        let item = BiometricKeychainItem()
        let read = reader(item)
        for _ in 0..<5 { #expect(try read() == Data("record".utf8)) }
        #expect(item.prompts == 1)
    }

    @Test func afterTheWindowTheUserIsAskedAgain() throws {
        let item = BiometricKeychainItem()
        let contexts = ReusedAuthenticationContext(reuseDuration: 60) { BiometricKeychainItem.Context() }
        let start = Date()
        let first = contexts.context(now: start)
        contexts.record(first, succeeded: true, now: start)
        #expect(contexts.context(now: start.addingTimeInterval(59)) === first)
        #expect(contexts.context(now: start.addingTimeInterval(61)) !== first)
        _ = item
    }

    @Test func aCancelledPromptIsCancelledAndTheNextReadAsksAgain() throws {
        let item = BiometricKeychainItem()
        item.answers = [.cancel]
        let read = reader(item)
        let error = try #require(throws: AuthFlowError.self) { try read() }
        #expect(error.category == .cancelled)
        #expect(error.underlyingError as? BiometricFailure == .promptCancelled)
        #expect(try read() == Data("record".utf8))
        #expect(item.prompts == 2)
    }

    @Test func lockoutIsATypedRetryableError() throws {
        let item = BiometricKeychainItem()
        item.answers = [.lockedOut]
        let error = try #require(throws: AuthFlowError.self) { try reader(item)() }
        #expect(error.category == .storage)
        #expect(error.underlyingError as? BiometricFailure == .authenticationFailed)
        #expect(error.recovery?.contains("passcode") == true)
    }

    @Test func anEnrolmentChangeNeedsASignIn() throws {
        let item = BiometricKeychainItem()
        item.changeEnrolment()
        let error = try #require(throws: AuthFlowError.self) { try reader(item)() }
        #expect(error.category == .reauthenticationRequired)
        #expect(error.underlyingError as? BiometricFailure == .enrolmentChanged)
    }

    @Test func noSessionAtAllIsNoSessionNotAnEnrolmentChange() throws {
        let item = BiometricKeychainItem()
        item.data = nil
        item.marker = false
        #expect(try reader(item)() == nil)
    }
}
