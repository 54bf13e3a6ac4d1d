import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// A rotated refresh token is never lost: when the store cannot save the
/// refreshed credentials, the session keeps them, reports the failure on its
/// change stream, and never sends the refresh token they replaced again.
@Suite struct SessionSaveFailureTests {
    /// A file store whose saves fail while its reads work, even for root:
    /// the file name is so long that the atomic writer's temporary name next
    /// to it exceeds the file-name limit.
    static func unwritableFileStore(holding record: SessionRecord) throws -> FileCredentialStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-save-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = directory.appendingPathComponent(String(repeating: "s", count: 240))
        try CredentialCoding.encode(record).write(to: url)
        #expect(chmod(url.path, 0o600) == 0)
        return FileCredentialStore(url: url)
    }

    static func refreshTokensSent(_ provider: SessionTests.Provider) -> [String?] {
        provider.requests(to: "/token").map { formDictionary(String(decoding: $0.body ?? Data(), as: UTF8.self))["refresh_token"] }
    }

    @Test func aFileStoreThatCannotSaveKeepsTheRotatedTokenAndReportsTheError() async throws {
        let provider = try SessionTests.Provider(token: [
            SessionTests.refreshed("AT-2", refresh: "RT-2"),
            SessionTests.refreshed("AT-3", refresh: "RT-3"),
        ])
        let old = try SessionTests.credentials(access: "AT-1", refresh: "RT-1")
        let store = try Self.unwritableFileStore(holding: SessionRecord(credentials: old, client: provider.client))
        await #expect(throws: AuthFlowError.self, "the store really refuses saves") {
            try await store.save(SessionRecord(credentials: old, client: provider.client))
        }
        let session = AuthSession.resume(client: provider.client, store: store, credentials: old)
        let changes = session.changes
        #expect(try await session.freshAccessToken() == "AT-2")
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == .refreshed)
        guard case .notSaved(let error) = await iterator.next() else {
            Issue.record("the failed save is not reported")
            return
        }
        #expect(error.category == .storage)
        #expect(try await session.currentCredentials?.token.refreshToken == "RT-2", "the new credentials are kept")
        #expect(try await store.load()?.credentials.token.refreshToken == "RT-1", "the store still holds the old record")

        // The next refresh starts from the kept credentials, never from the dead token in the store.
        #expect(try await session.freshAccessToken(minimumValidity: 7200) == "AT-3")
        #expect(Self.refreshTokensSent(provider) == ["RT-1", "RT-2"])
    }

    @Test func signOutRevokesTheUnsavedRefreshToken() async throws {
        let provider = try SessionTests.Provider(token: [SessionTests.refreshed("AT-2", refresh: "RT-2")])
        let old = try SessionTests.credentials(access: "AT-1", refresh: "RT-1")
        let store = try Self.unwritableFileStore(holding: SessionRecord(credentials: old, client: provider.client))
        let session = AuthSession.resume(client: provider.client, store: store, credentials: old)
        _ = try await session.freshAccessToken()
        try await session.signOut()
        let revoked = provider.requests(to: "/revoke").map { formDictionary(String(decoding: $0.body ?? Data(), as: UTF8.self))["token"] }
        #expect(revoked.contains("RT-2"))
    }
}
