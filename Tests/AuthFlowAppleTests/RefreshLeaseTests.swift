import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

/// An app and its extension (two lease holders on one container directory,
/// each with its own file descriptor, as two processes have) sharing one
/// session.
@Suite struct RefreshLeaseTests {
    static func container() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("authflow-group-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func noFileLockIsHeldWhileTheRefreshIsOnTheNetwork() async throws {
        let lease = RefreshLease(url: try Self.container().appendingPathComponent("session.lease"))
        let lockFile = lease.url.appendingPathExtension("lock")
        try await lease.withLease {
            // Another process takes the lock file at once while this holder is "on the network".
            let other = FileLock(url: lockFile, timeout: 0, name: "other")
            try await other.withLock {}
        }
    }

    @Test func theSecondHolderWaitsForTheFirst() async throws {
        let url = try Self.container().appendingPathComponent("session.lease")
        let app = RefreshLease(url: url)
        let appExtension = RefreshLease(url: url)
        let events = LockedValue<[String]>([])
        let (started, continuation) = AsyncStream.makeStream(of: Void.self)
        async let first: Void = app.withLease {
            events.withLock { $0.append("app in") }
            continuation.yield()
            try await Task.sleep(nanoseconds: 200_000_000)
            events.withLock { $0.append("app out") }
        }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
        try await appExtension.withLease { events.withLock { $0.append("extension in") } }
        try await first
        #expect(events.withLock { $0 } == ["app in", "app out", "extension in"])
    }

    @Test func aLeaseOfASuspendedHolderIsTakenOverAfterItExpires() async throws {
        let url = try Self.container().appendingPathComponent("session.lease")
        // The app took the lease and was suspended: it never gives it back.
        try Lease(holder: "suspended-app", expiry: Date().addingTimeInterval(0.3)).write(to: url)
        let appExtension = RefreshLease(url: url)
        let start = Date()
        try await appExtension.withLease {}
        #expect(Date().timeIntervalSince(start) >= 0.25)
    }

    @Test func aLiveLeaseBeyondTheWaitLimitIsATimeout() async throws {
        let url = try Self.container().appendingPathComponent("session.lease")
        try Lease(holder: "app", expiry: Date().addingTimeInterval(60)).write(to: url)
        let appExtension = RefreshLease(url: url, waitLimit: 0.2)
        let error = await #expect(throws: AuthFlowError.self) { try await appExtension.withLease {} }
        #expect(error?.category == .timeout)
    }

    @Test func theDefaultWaitEndsWithinAnExtensionsBudgetNotAfterTheLease() async throws {
        let url = try Self.container().appendingPathComponent("session.lease")
        try Lease(holder: "suspended-app", expiry: Date.distantFuture).write(to: url)
        // A clock that moves 5 s at each reading: the wait is measured in its time.
        let start = Date()
        let readings = LockedValue(0)
        let clock: @Sendable () -> Date = {
            start.addingTimeInterval(
                5
                    * Double(
                        readings.withLock { count in
                            count += 1
                            return count - 1
                        }))
        }
        let widget = RefreshLease(url: url, now: clock)
        let error = await #expect(throws: AuthFlowError.self) { try await widget.withLease {} }
        #expect(error?.category == .timeout)
        #expect(error?.remedy == .allowMoreTime)
        let waited = 5 * Double(readings.withLock { $0 } - 1)
        #expect(waited <= 25)
        #expect(waited < widget.duration)
    }

    /// Both processes' sessions over one stored record: one refresh reaches
    /// the provider, the other process uses its saved result.
    final class SharedRecordStore: CredentialStore {
        let shared: LockedValue<SessionRecord?>
        let lease: RefreshLease
        init(shared: LockedValue<SessionRecord?>, lease: RefreshLease) {
            self.shared = shared
            self.lease = lease
        }
        func load() async throws -> SessionRecord? { shared.withLock { $0 } }
        func save(_ record: SessionRecord) async throws { shared.withLock { $0 = record } }
        func delete() async throws { shared.withLock { $0 = nil } }
        func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
            try await lease.withLease(body)
        }
    }

    @Test func theAppAndItsExtensionRefreshingAtOnceSendOneRotatingTokenOnce() async throws {
        let url = try Self.container().appendingPathComponent("session.lease")
        let transport = ScriptedTransport { _ in
            Thread.sleep(forTimeInterval: 0.1)
            return ScriptedTransport.json(#"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-2"}"#)
        }
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: transport)
        let old = try LockedKeychainSessionTests.credentials(access: "AT-1", refresh: "RT-1")
        let shared = LockedValue<SessionRecord?>(SessionRecord(credentials: old, client: client))
        let app = AuthSession.resume(
            client: client, store: SharedRecordStore(shared: shared, lease: RefreshLease(url: url)), credentials: old)
        let appExtension = AuthSession.resume(
            client: client, store: SharedRecordStore(shared: shared, lease: RefreshLease(url: url)),
            credentials: old)
        async let a = app.freshAccessToken()
        async let b = appExtension.freshAccessToken()
        #expect(try await [a, b] == ["AT-2", "AT-2"])
        #expect(transport.requests.count == 1)
    }
}
