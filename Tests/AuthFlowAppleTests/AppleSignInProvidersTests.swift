import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

/// Several providers in one Info.plist, chosen by the app: from a list, by
/// issuer, or by the account the user types (WebFinger).
@Suite struct AppleSignInProvidersTests {
    private let shared: [String: Any] = [
        "RedirectURI": "https://app.example.com/oauth/callback", "FallbackRedirectURI": "com.example.app:/oauth",
        "Scopes": "openid profile offline_access", "KeychainAccessGroup": "TEAM.com.example.shared", "AppGroup": "group.com.example",
    ]

    private func dictionary(_ providers: [[String: Any]]) -> [String: Any] {
        shared.merging(["Providers": providers]) { _, new in new }
    }

    @Test func oneProviderIsTheDictionaryItselfNamedAfterItsHost() throws {
        let single = try AppleSignInProviders(
            dictionary: shared.merging(["Issuer": "https://id.carrier-a.example", "ClientID": "app-a"]) { _, new in new })
        #expect(single.all.count == 1)
        #expect(single.all[0].name == "id.carrier-a.example")
        #expect(single.all[0].issuer == (try Issuer("https://id.carrier-a.example")))
    }

    @Test func eachEntryTakesTheSharedKeysUnderItsOwn() throws {
        let providers = try AppleSignInProviders(
            dictionary: dictionary([
                ["Name": "Carrier A", "Issuer": "https://id.carrier-a.example", "ClientID": "app-a"],
                ["Name": "Carrier B", "Issuer": "https://login.carrier-b.example", "ClientID": "app-b", "Scopes": "openid", "DPoP": true],
            ]))
        #expect(providers.all.map(\.name) == ["Carrier A", "Carrier B"])
        let (a, b) = (providers.all[0].settings, providers.all[1].settings)
        #expect(a.client.scopes == ["openid", "profile", "offline_access"] && b.client.scopes == ["openid"])
        #expect(a.keychainAccessGroup == "TEAM.com.example.shared" && b.appGroup == "group.com.example")
        #expect(!a.usesDPoP && b.usesDPoP)
        // Each its own Keychain item.
        #expect(a.credentialKey != b.credentialKey)
        #expect(providers.provider(for: try Issuer("https://login.carrier-b.example"))?.name == "Carrier B")
        #expect(providers.provider(for: try Issuer("https://login.carrier-b.example/")) == nil)
    }

    @Test func malformedEntriesNameTheirIndex() throws {
        let missing = try #require(throws: AuthFlowError.self) {
            try AppleSignInProviders(dictionary: dictionary([["Name": "A", "ClientID": "app-a"]]))
        }
        #expect(missing.category == .configuration && missing.message.hasPrefix("Providers[0]: "))
        let twins = try #require(throws: AuthFlowError.self) {
            try AppleSignInProviders(
                dictionary: dictionary([
                    ["Name": "A", "Issuer": "https://id.carrier-a.example", "ClientID": "app-a"],
                    ["Name": "B", "Issuer": "https://id.carrier-a.example", "ClientID": "app-a"],
                ]))
        }
        #expect(twins.message == "Providers[1] repeats A: two providers need different names and issuers or clients")
        let empty = try #require(throws: AuthFlowError.self) { try AppleSignInProviders(dictionary: dictionary([])) }
        #expect(empty.message == "Providers must be a non-empty array of dictionaries")
        let badName = try #require(throws: AuthFlowError.self) {
            try AppleSignInProviders(dictionary: dictionary([["Name": "", "Issuer": "https://id.carrier-a.example", "ClientID": "a"]]))
        }
        #expect(badName.message == "Providers[0]: Name must be a non-empty string")
    }

    @Test func anAccountChoosesTheProviderItsHostNames() async throws {
        let providers = try AppleSignInProviders(
            dictionary: dictionary([
                ["Name": "Carrier A", "Issuer": "https://id.carrier-a.example", "ClientID": "app-a"],
                ["Name": "Carrier B", "Issuer": "https://login.carrier-b.example", "ClientID": "app-b"],
            ]))
        let chosen = try await providers.provider(forAccount: "alice@carrier-b.example") { account in
            #expect(account == "alice@carrier-b.example")
            return try Issuer("https://login.carrier-b.example")
        }
        #expect(chosen.name == "Carrier B")
        // A provider the app has no client with cannot be used, whatever the account's host says.
        let foreign = await #expect(throws: AuthFlowError.self) {
            _ = try await providers.provider(forAccount: "mallory@evil.example") { _ in try Issuer("https://evil.example") }
        }
        #expect(foreign?.category == .configuration)
        #expect(
            foreign?.message == "the account's provider (https://evil.example) is not one this app signs in with (Carrier A, Carrier B)")
    }

    @Test func aLoopbackAccountIsDiscoveredOverTheNetworkForReal() async throws {
        // The engine's WebFinger lookup runs as the app runs it: no server on
        // this port refuses the connection, a network error.
        let providers = try AppleSignInProviders(
            dictionary: shared.merging(["Issuer": "https://id.carrier-a.example", "ClientID": "app-a"]) { _, new in new })
        let error = await #expect(throws: AuthFlowError.self) {
            _ = try await providers.provider(forAccount: "http://alice@127.0.0.1:9/", timeout: 5)
        }
        #expect(error?.category == .network)
    }
}
