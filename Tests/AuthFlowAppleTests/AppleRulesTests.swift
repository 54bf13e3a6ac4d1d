import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@Suite struct RedirectChoiceTests {
    let https = URL(string: "https://app.example.com/oauth/callback")!
    let custom = URL(string: "com.example.app:/oauth2redirect")!

    @Test func httpsWhereTheSystemMatchesHTTPSCallbacksCustomSchemeBefore() throws {
        let choice = try RedirectChoice(https: https, customScheme: custom)
        #expect(try choice.redirectURI(httpsCallbacksAvailable: true) == https)
        #expect(try choice.redirectURI(httpsCallbacksAvailable: false) == custom)
    }

    @Test func customSchemeOnlyIsUsedEverywhere() throws {
        let choice = try RedirectChoice(https: nil, customScheme: custom)
        #expect(try choice.redirectURI(httpsCallbacksAvailable: true) == custom)
        #expect(try choice.redirectURI(httpsCallbacksAvailable: false) == custom)
    }

    @Test func httpsWithoutFallbackOnAnOlderSystemNamesTheMissingFallback() throws {
        let choice = try RedirectChoice(https: https, customScheme: nil)
        #expect(try choice.redirectURI(httpsCallbacksAvailable: true) == https)
        let error = try #require(throws: AuthFlowError.self) { try choice.redirectURI(httpsCallbacksAvailable: false) }
        #expect(error.category == .configuration)
        #expect(error.message.contains("iOS 17.4"))
        #expect(error.recovery?.contains("FallbackRedirectURI") == true)
    }

    @Test func eachURIMustBeOfItsKind() throws {
        let swapped = try #require(throws: AuthFlowError.self) { try RedirectChoice(https: custom, customScheme: nil) }
        #expect(swapped.category == .configuration)
        #expect(swapped.message.contains("not an https URL"))
        let httpsAsFallback = try #require(throws: AuthFlowError.self) { try RedirectChoice(https: nil, customScheme: https) }
        #expect(httpsAsFallback.message.contains("does not use a custom scheme"))
        let none = try #require(throws: AuthFlowError.self) { try RedirectChoice(https: nil, customScheme: nil) }
        #expect(none.message == "no redirect URI is configured")
    }

    @Test func redirectURIPolicyStillApplies() throws {
        // A loopback http redirect belongs to the loopback listener; a fragment is never allowed.
        #expect(throws: AuthFlowError.self) { try RedirectChoice(https: nil, customScheme: URL(string: "http://127.0.0.1:8080/cb")!) }
        #expect(throws: AuthFlowError.self) { try RedirectChoice(https: URL(string: "https://app.example.com/cb#x")!, customScheme: nil) }
    }
}

@Suite struct KeychainStatusTests {
    @Test func deviceLockedIsARetryableStorageErrorKeepingTheStatus() throws {
        let error = KeychainStatus(-25308).error(operation: "read", item: "AuthFlow")
        #expect(error.category == .storage)
        #expect(error.message.contains("device is locked"))
        #expect(error.message.contains("try again after unlock"))
        #expect(error.recovery?.contains("Unlock the device") == true)
        #expect(error.underlyingError as? KeychainStatus == .interactionNotAllowed)
        #expect(KeychainStatus.interactionNotAllowed.isRetryable)
    }

    @Test func missingEntitlementIsConfigurationNamingTheEntitlement() {
        let error = KeychainStatus(-34018).error(operation: "write", item: "AuthFlow")
        #expect(error.category == .configuration)
        #expect(error.recovery?.contains("keychain-access-groups") == true)
        #expect(error.recovery?.contains("development team") == true, "a Mac build without a team gets this too")
        #expect(error.underlyingError as? KeychainStatus == .missingEntitlement)
        #expect(!KeychainStatus.missingEntitlement.isRetryable)
    }

    @Test func cancelledPromptIsCancelled() {
        #expect(KeychainStatus(-128).error(operation: "read", item: "AuthFlow").category == .cancelled)
    }

    @Test(arguments: [Int32(-25299), -25291, -25293, -50, -26275, -1])
    func everythingElseIsStorageWithTheStatusInTheMessage(_ status: Int32) {
        let error = KeychainStatus(status).error(operation: "delete", item: "Service")
        #expect(error.category == .storage)
        #expect(error.message.contains("OSStatus \(status)"))
        #expect(error.message.contains("Keychain item Service"))
        #expect(error.underlyingError as? KeychainStatus == KeychainStatus(status))
    }
}

/// A host that records calls and can expire the activity on demand, like
/// `UIApplication` does when background time runs out.
final class RecordingBackgroundHost: BackgroundExecutionHost, @unchecked Sendable {
    private let lock = NSLock()
    private var expirations: [BackgroundActivityID: @Sendable () -> Bool] = [:]
    private var next = 1
    private(set) var begun: [String] = []
    private(set) var endedByCaller: [BackgroundActivityID] = []
    private(set) var endedByHost: [BackgroundActivityID] = []
    let grants: Bool

    init(grants: Bool = true) { self.grants = grants }

    func beginActivity(named name: String, expiration: @escaping @Sendable () -> Bool) async -> BackgroundActivityID? {
        lock.withLock {
            begun.append(name)
            guard grants else { return nil }
            let id = BackgroundActivityID(rawValue: next)
            next += 1
            expirations[id] = expiration
            return id
        }
    }

    func endActivity(_ id: BackgroundActivityID) async {
        lock.withLock { endedByCaller.append(id) }
    }

    /// What the system does when time runs out: the handler, then the host ends it if told to.
    func expireAll() {
        let pending = lock.withLock { expirations }
        for (id, handler) in pending where handler() {
            lock.withLock { endedByHost.append(id) }
        }
    }

    var endCount: Int { lock.withLock { endedByCaller.count + endedByHost.count } }
}

@Suite struct BackgroundActivityTests {
    @Test func finishedOperationEndsTheActivityOnce() async throws {
        let host = RecordingBackgroundHost()
        let value = try await BackgroundActivity(name: "token refresh", host: host).run { 42 }
        #expect(value == 42)
        #expect(host.begun == ["token refresh"])
        #expect(host.endedByCaller == [BackgroundActivityID(rawValue: 1)])
        // A late expiration after the end is ignored by the rules: the host is told not to end again.
        host.expireAll()
        #expect(host.endCount == 1)
    }

    @Test func failingOperationEndsTheActivityAndRethrows() async throws {
        let host = RecordingBackgroundHost()
        let error = await #expect(throws: AuthFlowError.self) {
            try await BackgroundActivity(name: "refresh", host: host).run { () async throws -> Int in
                throw AuthFlowError(.network, "offline")
            }
        }
        #expect(error?.category == .network)
        #expect(host.endCount == 1)
    }

    @Test func expiryCancelsTheOperationAndTheHostEndsItOnce() async throws {
        let host = RecordingBackgroundHost()
        let started = AsyncStream<Void>.makeStream()
        let run = Task {
            try await BackgroundActivity(name: "refresh", host: host).run { () async throws -> Int in
                started.continuation.yield()
                try await Task.sleep(for: .seconds(60))
                return 1
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        await iterator.next()
        // Wait (bounded) until the activity has been granted, then expire it.
        for _ in 0..<1000 where host.begun.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        host.expireAll()
        let error = await #expect(throws: AuthFlowError.self) { try await run.value }
        #expect(error?.category == .cancelled)
        #expect(error?.message.contains("background time") == true)
        #expect(host.endedByHost.count == 1)
        #expect(host.endedByCaller.isEmpty)
    }

    @Test func noGrantedTimeStillRunsTheOperation() async throws {
        let host = RecordingBackgroundHost(grants: false)
        #expect(try await BackgroundActivity(name: "refresh", host: host).run { "done" } == "done")
        #expect(host.endCount == 0)
    }
}

@Suite struct AppleSignInSettingsTests {
    let base: [String: Any] = [
        "Issuer": "https://id.example.com", "ClientID": "com.example.app",
        "RedirectURI": "https://app.example.com/oauth/callback",
        "FallbackRedirectURI": "com.example.app:/oauth2redirect", "Scopes": "openid offline_access",
    ]

    @Test func readsTheAppleKeys() throws {
        var dictionary = base
        dictionary["PostLogoutRedirectURI"] = "com.example.app:/signed-out"
        dictionary["EphemeralBrowserSession"] = true
        dictionary["KeychainAccessGroup"] = "ABCDE12345.com.example.shared"
        dictionary["AppGroup"] = "group.com.example"
        let settings = try AppleSignInSettings(dictionary: dictionary)
        #expect(settings.redirects.https == URL(string: "https://app.example.com/oauth/callback"))
        #expect(settings.redirects.customScheme == URL(string: "com.example.app:/oauth2redirect"))
        #expect(settings.postLogoutRedirectURI == URL(string: "com.example.app:/signed-out"))
        #expect(settings.prefersEphemeralBrowserSession)
        #expect(settings.keychainAccessGroup == "ABCDE12345.com.example.shared")
        #expect(settings.appGroup == "group.com.example")
        #expect(settings.client.scopes == ["openid", "offline_access"])
        #expect(settings.credentialKey == CredentialKey(issuer: "https://id.example.com", clientID: "com.example.app"))
    }

    @Test func aSharedKeychainGroupWithoutAnAppGroupIsRefused() throws {
        var dictionary = base
        dictionary["KeychainAccessGroup"] = "ABCDE12345.com.example.shared"
        let error = try #require(throws: AuthFlowError.self) { try AppleSignInSettings(dictionary: dictionary) }
        #expect(error.category == .configuration)
        #expect(error.message == "KeychainAccessGroup is set without AppGroup")
        #expect(error.recovery?.contains("AppGroup") == true)
    }

    @Test func customSchemeRedirectAloneNeedsNoFallback() throws {
        var dictionary = base
        dictionary["RedirectURI"] = "com.example.app:/oauth2redirect"
        dictionary["FallbackRedirectURI"] = nil
        let settings = try AppleSignInSettings(dictionary: dictionary)
        #expect(settings.redirects.https == nil)
        #expect(try settings.redirects.redirectURI(httpsCallbacksAvailable: false) == URL(string: "com.example.app:/oauth2redirect"))
        #expect(!settings.prefersEphemeralBrowserSession)
    }

    @Test func fallbackBesideACustomSchemeRedirectIsRefused() throws {
        var dictionary = base
        dictionary["RedirectURI"] = "com.example.app:/oauth2redirect"
        let error = try #require(throws: AuthFlowError.self) { try AppleSignInSettings(dictionary: dictionary) }
        #expect(error.category == .configuration)
        #expect(error.message.contains("FallbackRedirectURI is only used with an https RedirectURI"))
    }

    @Test func dpopIsOffUnlessTheKeySaysYes() throws {
        #expect(try !AppleSignInSettings(dictionary: base).usesDPoP)
        var on = base
        on["DPoP"] = true
        #expect(try AppleSignInSettings(dictionary: on).usesDPoP)
        var off = base
        off["DPoP"] = false
        #expect(try !AppleSignInSettings(dictionary: off).usesDPoP)
    }

    @Test func dpopThatIsNotABooleanIsRefused() throws {
        for value: Any in ["YES", 1, ["true"]] {
            var dictionary = base
            dictionary["DPoP"] = value
            let error = try #require(throws: AuthFlowError.self) { try AppleSignInSettings(dictionary: dictionary) }
            #expect(error.category == .configuration)
            #expect(error.message == "DPoP must be a Boolean")
            #expect(error.recovery == "Set DPoP to YES or NO.")
        }
    }

    @Test func malformedKeysAreNamed() throws {
        var notBool = base
        notBool["EphemeralBrowserSession"] = "yes"
        #expect(
            try #require(throws: AuthFlowError.self) { try AppleSignInSettings(dictionary: notBool) }.message.contains(
                "EphemeralBrowserSession"))
        var badFallback = base
        badFallback["FallbackRedirectURI"] = "https://app.example.com/other"
        #expect(
            try #require(throws: AuthFlowError.self) { try AppleSignInSettings(dictionary: badFallback) }.message.contains("custom scheme"))
        var emptyGroup = base
        emptyGroup["AppGroup"] = ""
        #expect(try #require(throws: AuthFlowError.self) { try AppleSignInSettings(dictionary: emptyGroup) }.message.contains("AppGroup"))
    }
}

@Suite struct SessionBackgroundTests {
    @Test func freshTokenInsideABackgroundActivityEndsIt() async throws {
        var token = try TokenResponse(json: json(#"{"access_token":"AT-1","token_type":"Bearer","expires_in":3600}"#), requestedScopes: [])
        token.refreshToken = nil
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: ScriptedTransport.unused())
        let session = AuthSession(client: client, credentials: OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil))
        let host = RecordingBackgroundHost()
        #expect(try await session.freshAccessToken(continuingIn: host) == "AT-1")
        #expect(host.begun == ["AuthFlow token refresh"])
        #expect(host.endedByCaller.count == 1)
    }
}
