import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

/// The device locks while a refresh is on the network (a whenUnlocked
/// Keychain item): the rotated refresh token must survive until the Keychain
/// takes it.
@Suite struct LockedKeychainSessionTests {
    static func credentials(access: String, refresh: String) throws -> OAuthCredentials {
        var token = try TokenResponse(json: json(#"{"access_token":"\#(access)","token_type":"Bearer"}"#), requestedScopes: [])
        token.refreshToken = refresh
        token.expiresAt = Date(timeIntervalSinceNow: -10)
        return OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil)
    }

    @Test func aRefreshWhileTheDeviceLocksKeepsTheTokenAndSavesAfterUnlock() async throws {
        let keychain = LockableKeychain()
        let sent = LockedValue<[String]>([])
        let transport = ScriptedTransport { request in
            let body = String(decoding: request.body ?? Data(), as: UTF8.self)
            sent.withLock { $0.append(body) }
            keychain.lock() // the user locks the phone while the request is out
            return ScriptedTransport.json(#"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-2"}"#)
        }
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: transport)
        let old = try Self.credentials(access: "AT-1", refresh: "RT-1")
        try await keychain.save(SessionRecord(credentials: old, client: client))
        let session = AuthSession.resume(client: client, store: keychain, credentials: old)
        let changes = session.changes
        var iterator = changes.makeAsyncIterator()

        #expect(try await session.freshAccessToken() == "AT-2")
        #expect(await iterator.next() == .refreshed)
        guard case .notSaved(let error) = await iterator.next() else {
            Issue.record("the locked Keychain is not reported")
            return
        }
        #expect(error.category == .storage)
        #expect(error.underlyingError as? KeychainStatus == .interactionNotAllowed)

        // Still locked: the session answers from memory and tries again quietly.
        #expect(try await session.freshAccessToken() == "AT-2")
        await #expect(throws: AuthFlowError.self) { try await session.savePendingCredentials() }

        // Protected data becomes available: the app asks the session to save.
        keychain.unlock()
        try await session.savePendingCredentials()
        #expect(await iterator.next() == .saved)
        #expect(try await keychain.load()?.credentials.token.refreshToken == "RT-2")
        #expect(sent.withLock { $0 }.count == 1)
        #expect(sent.withLock { $0 }.allSatisfy { $0.contains("refresh_token=RT-1") })
    }

    @Test func theNextUseAfterUnlockSavesWithoutTheNetwork() async throws {
        let keychain = LockableKeychain()
        let transport = ScriptedTransport { _ in
            keychain.lock()
            return ScriptedTransport.json(#"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-2"}"#)
        }
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: transport)
        let old = try Self.credentials(access: "AT-1", refresh: "RT-1")
        try await keychain.save(SessionRecord(credentials: old, client: client))
        let session = AuthSession.resume(client: client, store: keychain, credentials: old)
        _ = try await session.freshAccessToken()
        keychain.unlock()
        #expect(try await session.freshAccessToken() == "AT-2")
        #expect(try await keychain.load()?.credentials.token.refreshToken == "RT-2")
        #expect(transport.requests.count == 1)
    }
}
