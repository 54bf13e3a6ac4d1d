import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@Suite struct KeychainItemRulesTests {
    let keychain = SimulatedKeychain()

    func read() throws -> Data? { try KeychainItemRules.read(item: "AuthFlow") { keychain.copyMatching("a") } }
    func write(_ data: Data) throws {
        try KeychainItemRules.write(item: "AuthFlow", update: { keychain.update("a", data) }, add: { keychain.add("a", data) })
    }

    @Test func aLockedDeviceIsARetryableStorageErrorUntilUnlock() throws {
        try write(Data("one".utf8))
        keychain.lockDevice()
        let error = try #require(throws: AuthFlowError.self) { try read() }
        #expect(error.category == .storage)
        #expect(error.underlyingError as? KeychainStatus == .interactionNotAllowed)
        #expect(error.message.contains("locked"))
        #expect(throws: AuthFlowError.self) { try write(Data("two".utf8)) }
        keychain.unlockDevice()
        #expect(try read() == Data("one".utf8))
    }

    @Test func aMissingItemIsAddedAndAnExistingOneUpdated() throws {
        #expect(try read() == nil)
        try write(Data("one".utf8))
        try write(Data("two".utf8))
        #expect(keychain.item("a") == Data("two".utf8))
    }

    @Test func anotherProcessAddingFirstIsUpdatedNotAnError() throws {
        keychain.anotherProcessWillAdd("a", Data("theirs".utf8))
        try write(Data("ours".utf8))
        #expect(keychain.item("a") == Data("ours".utf8))
    }

    @Test func deletingAMissingItemIsDone() throws {
        try KeychainItemRules.delete(item: "AuthFlow") { keychain.delete("a") }
        keychain.lockDevice()
        #expect(throws: AuthFlowError.self) { try KeychainItemRules.delete(item: "AuthFlow") { keychain.delete("a") } }
    }

    @Test func successWithoutDataIsAStorageError() throws {
        let error = try #require(throws: AuthFlowError.self) {
            try KeychainItemRules.read(item: "AuthFlow") { (.success, nil) }
        }
        #expect(error.category == .storage)
    }
}
