import AuthFlow
import Foundation
import Testing

@testable import AuthFlowApple

@MainActor
@Suite struct BackgroundTaskExpiryTests {
    @Test func expiryBeforeTheIdentifierIsKnownStillEndsTheTaskOnce() async throws {
        let system = SystemBackgroundTasks()
        system.noTimeLeft = true
        let activity = BackgroundActivity(name: "refresh", host: StandInBackgroundHost(system))
        let error = await #expect(throws: AuthFlowError.self) {
            try await activity.run { () async throws -> String in
                try await Task.sleep(nanoseconds: 5_000_000_000)
                return "late"
            }
        }
        #expect(error?.category == .cancelled)
        #expect(system.ended == [1])
    }

    @Test func theAppMovedToTheBackgroundWhoseTimeExpiresCancelsTheWorkAndEndsTheTaskOnce() async throws {
        let system = SystemBackgroundTasks()
        let activity = BackgroundActivity(name: "refresh", host: StandInBackgroundHost(system))
        let started = LockedValue(false)
        let task = Task { @MainActor in
            try await activity.run { () async throws -> String in
                started.withLock { $0 = true }
                try await Task.sleep(nanoseconds: 5_000_000_000)
                return "late"
            }
        }
        while !started.withLock({ $0 }) { await Task.yield() }
        system.expireAll()
        let error = await #expect(throws: AuthFlowError.self) { try await task.value }
        #expect(error?.category == .cancelled)
        #expect(system.ended == [1])
    }

    @Test func workThatFinishesInTimeEndsTheTaskOnce() async throws {
        let system = SystemBackgroundTasks()
        let activity = BackgroundActivity(name: "refresh", host: StandInBackgroundHost(system))
        #expect(try await activity.run { "done" } == "done")
        system.expireAll()
        #expect(system.ended == [1])
    }
}

/// When the background time expires, the refresh stops where stopping loses
/// nothing, and a token request already sent finishes and is saved.
@MainActor
@Suite struct BackgroundRefreshExpiryTests {
    /// A store whose exclusive access is held elsewhere (another process is
    /// refreshing) until the waiting task is cancelled.
    final class BusyStore: CredentialStore {
        let record: SessionRecord
        let waiting = LockedValue(false)
        init(_ record: SessionRecord) { self.record = record }
        func load() async throws -> SessionRecord? { record }
        func save(_ record: SessionRecord) async throws {}
        func delete() async throws {}
        func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
            waiting.withLock { $0 = true }
            try await Task.sleep(nanoseconds: 30_000_000_000)
            return try await body()
        }
    }

    /// A token endpoint that answers a rotated token once `release` is
    /// called, unless the request's task was cancelled meanwhile.
    final class GatedTokenEndpoint: HTTPTransport {
        let requests = LockedValue(0)
        private let gate = LockedValue<CheckedContinuation<Void, Never>?>(nil)
        private let opened = LockedValue(false)

        func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
            requests.withLock { $0 += 1 }
            await withCheckedContinuation { continuation in
                let open = opened.withLock { opened -> Bool in
                    if !opened { gate.withLock { $0 = continuation } }
                    return opened
                }
                if open { continuation.resume() }
            }
            // As URLSession does: a request whose task was cancelled fails.
            if Task.isCancelled { throw AuthFlowError(.cancelled, "the token request was cancelled") }
            return HTTPTransportResponse(
                status: 200, headers: [("Content-Type", "application/json")],
                body: json(#"{"access_token":"AT-2","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-2"}"#))
        }

        func release() {
            opened.withLock { $0 = true }
            gate.withLock { $0 }?.resume()
        }
    }

    static func expired() throws -> OAuthCredentials {
        let token = try TokenResponse(
            json: json(#"{"access_token":"AT-1","token_type":"Bearer","expires_in":0,"refresh_token":"RT-1"}"#),
            requestedScopes: [])
        return OAuthCredentials(issuer: nil, clientID: "app", token: token, idToken: nil)
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<5_000 where !condition() { try await Task.sleep(nanoseconds: 1_000_000) }
    }

    @Test func expiryStopsARefreshWaitingForTheStoreBeforeItSendsAnything() async throws {
        let endpoint = GatedTokenEndpoint()
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: endpoint)
        let store = BusyStore(SessionRecord(credentials: try Self.expired(), client: client))
        let session = AuthSession(client: client, store: store, credentials: try Self.expired())
        let system = SystemBackgroundTasks()
        let caller = Task { @MainActor in try await session.freshAccessToken(continuingIn: StandInBackgroundHost(system)) }
        try await Self.waitUntil { store.waiting.withLock { $0 } }
        system.expireAll()
        let error = await #expect(throws: AuthFlowError.self) { try await caller.value }
        #expect(error?.category == .cancelled)
        #expect(system.ended == [1])
        // The refresh itself ended: a new caller starts a new one instead of
        // joining a refresh still waiting 30 s for the store.
        store.waiting.withLock { $0 = false }
        let second = Task { try await session.freshAccessToken() }
        try await Self.waitUntil { store.waiting.withLock { $0 } }
        #expect(store.waiting.withLock { $0 }, "the cancelled refresh was still in flight")
        session.cancelRefreshInFlight()
        let secondError = await #expect(throws: AuthFlowError.self) { try await second.value }
        #expect(secondError?.category == .cancelled)
        #expect(endpoint.requests.withLock { $0 } == 0)
    }

    @Test func aTokenRequestAlreadySentFinishesAndItsRotatedTokenIsKept() async throws {
        let endpoint = GatedTokenEndpoint()
        let client = try OAuthClient(metadata: metadata(issuer: nil), clientID: "app", transport: endpoint)
        let store = MemoryCredentialStore()
        let session = try await AuthSession.start(client: client, credentials: try Self.expired(), store: store)
        let system = SystemBackgroundTasks()
        let caller = Task { @MainActor in try await session.freshAccessToken(continuingIn: StandInBackgroundHost(system)) }
        try await Self.waitUntil { endpoint.requests.withLock { $0 } == 1 }
        system.expireAll()
        let error = await #expect(throws: AuthFlowError.self) { try await caller.value }
        #expect(error?.category == .cancelled)
        #expect(system.ended == [1])
        endpoint.release() // the app runs again: the answer arrives
        #expect(try await session.freshAccessToken() == "AT-2")
        #expect(try await store.load()?.credentials.token.refreshToken == "RT-2")
        #expect(endpoint.requests.withLock { $0 } == 1)
    }
}
