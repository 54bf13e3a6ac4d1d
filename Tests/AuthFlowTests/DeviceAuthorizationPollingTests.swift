import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// The polling rules of RFC 8628 §3.5, with a scripted token endpoint and a
/// fake clock (no real waits).
@Suite("Device authorization: polling")
struct DeviceAuthorizationPollingTests {
    private func start(
        _ script: [HTTPTransportResponse], clock: FakeClock = FakeClock(), log: LogCapture = LogCapture(),
        onRequest: (@Sendable (Int) -> Void)? = nil
    ) async throws -> (PendingDeviceAuthorization, QueuedTransport) {
        let transport = QueuedTransport(script, onRequest: onRequest)
        let client = try DeviceFixture.client(transport, log: log)
        let pending = try await client.startDeviceAuthorization(scopes: ["openid", "profile"], clock: clock)
        return (pending, transport)
    }

    @Test("authorization_pending keeps polling at the same interval")
    func pendingKeepsPolling() async throws {
        let clock = FakeClock()
        let polls = PollLog()
        let (pending, transport) = try await start(
            [
                DeviceFixture.authorization(interval: 3),
                QueuedTransport.oauthError("authorization_pending"),
                QueuedTransport.oauthError("authorization_pending"),
                DeviceFixture.token(),
            ], clock: clock)
        let credentials = try await pending.credentials { polls.record($0) }
        #expect(credentials.accessToken == DeviceFixture.accessToken)
        #expect(clock.sleeps == [.seconds(3), .seconds(3), .seconds(3)])
        #expect(polls.polls.map(\.outcome) == [.pending, .pending, .granted])
        #expect(polls.polls.map(\.interval) == [.seconds(3), .seconds(3), .seconds(3)])
        #expect(transport.requests.count == 4)
        let form = DeviceFixture.form(transport.requests[1])
        #expect(form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code")
        #expect(form["device_code"] == DeviceFixture.deviceCode)
        #expect(form["client_id"] == DeviceFixture.clientID)
        #expect(transport.requests[1].url == DeviceFixture.metadata.tokenEndpoint)
    }

    @Test("no interval in the response means 5 seconds")
    func defaultInterval() async throws {
        let clock = FakeClock()
        let (pending, _) = try await start([DeviceFixture.authorization(interval: nil), DeviceFixture.token()], clock: clock)
        #expect(pending.response.interval == 5)
        _ = try await pending.credentials()
        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test("slow_down adds 5 seconds to this and every later interval, cumulatively")
    func slowDownIsCumulative() async throws {
        let clock = FakeClock()
        let polls = PollLog()
        let (pending, _) = try await start(
            [
                DeviceFixture.authorization(interval: 5),
                QueuedTransport.oauthError("authorization_pending"),
                QueuedTransport.oauthError("slow_down"),
                QueuedTransport.oauthError("authorization_pending"),
                QueuedTransport.oauthError("slow_down"),
                QueuedTransport.oauthError("authorization_pending"),
                DeviceFixture.token(),
            ], clock: clock)
        _ = try await pending.credentials { polls.record($0) }
        #expect(clock.sleeps == [.seconds(5), .seconds(5), .seconds(10), .seconds(10), .seconds(15), .seconds(15)])
        #expect(polls.polls.map(\.outcome) == [.pending, .slowDown, .pending, .slowDown, .pending, .granted])
        #expect(polls.polls.map(\.attempt) == [1, 2, 3, 4, 5, 6])
    }

    @Test("access_denied ends polling with oauth_error")
    func accessDenied() async throws {
        let (pending, transport) = try await start([
            DeviceFixture.authorization(),
            QueuedTransport.oauthError("authorization_pending"),
            QueuedTransport.oauthError("access_denied"),
        ])
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        #expect(error?.category == .oauthError)
        #expect(error?.oauth?.error == "access_denied")
        #expect(transport.requests.count == 3)
    }

    @Test("expired_token is a timeout, with the server's error kept")
    func expiredToken() async throws {
        let (pending, transport) = try await start([
            DeviceFixture.authorization(),
            QueuedTransport.oauthError("expired_token"),
        ])
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        #expect(error?.category == .timeout)
        #expect(error?.oauth?.error == "expired_token")
        #expect(transport.requests.count == 2)
    }

    @Test("the expires_in deadline is a timeout; no poll is sent after it")
    func deadline() async throws {
        let clock = FakeClock()
        let (pending, transport) = try await start(
            [
                DeviceFixture.authorization(expiresIn: 12, interval: 5),
                QueuedTransport.oauthError("authorization_pending"),
                QueuedTransport.oauthError("authorization_pending"),
                QueuedTransport.oauthError("authorization_pending"),
            ], clock: clock)
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        #expect(error?.category == .timeout)
        #expect(error?.oauth == nil)
        #expect(clock.sleeps == [.seconds(5), .seconds(5)], "polls at 5 s and 10 s; 15 s is past the 12 s lifetime")
        #expect(transport.requests.count == 3)
    }

    @Test("slow_down counts against the deadline too")
    func slowDownReachesDeadline() async throws {
        let clock = FakeClock()
        let (pending, transport) = try await start(
            [
                DeviceFixture.authorization(expiresIn: 20, interval: 5),
                QueuedTransport.oauthError("slow_down"),
                QueuedTransport.oauthError("authorization_pending"),
            ], clock: clock)
        let error = await #expect(throws: AuthFlowError.self) { try await pending.credentials() }
        #expect(error?.category == .timeout)
        #expect(clock.sleeps == [.seconds(5), .seconds(10)])
        #expect(transport.requests.count == 3)
    }

    @Test("a poll that times out doubles the interval and polling goes on")
    func requestTimeoutBacksOff() async throws {
        let clock = FakeClock()
        let transport = TimeoutOnceTransport(
            inner: QueuedTransport([
                DeviceFixture.authorization(interval: 2),
                QueuedTransport.oauthError("authorization_pending"),
                DeviceFixture.token(),
            ]), failing: 2)
        let client = try OAuthClient(
            metadata: DeviceFixture.metadata, clientID: DeviceFixture.clientID, transport: transport,
            logger: LogCapture().logger())
        let pending = try await client.startDeviceAuthorization(scopes: [], clock: clock)
        let polls = PollLog()
        _ = try await pending.credentials { polls.record($0) }
        #expect(polls.polls.map(\.outcome) == [.retry, .pending, .granted])
        #expect(clock.sleeps == [.seconds(2), .seconds(4), .seconds(4)])
    }

    @Test("cancellation stops at once and sends nothing more")
    func cancellation() async throws {
        let clock = FakeClock(blockAtSleep: 2)
        let (pending, transport) = try await start(
            [
                DeviceFixture.authorization(),
                QueuedTransport.oauthError("authorization_pending"),
                DeviceFixture.token(),
            ], clock: clock)
        let task = Task { try await pending.credentials() }
        while clock.sleeps.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        let result = await task.result
        #expect(throws: AuthFlowError(.cancelled, "the device authorization was cancelled")) { try result.get() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(transport.requests.count == 2, "the device authorization request and one poll; nothing after the cancel")
    }

    @Test("cancellation during a poll request sends nothing more")
    func cancellationDuringRequest() async throws {
        let clock = FakeClock()
        let holder = TaskHolder()
        let (pending, transport) = try await start(
            [
                DeviceFixture.authorization(),
                QueuedTransport.oauthError("authorization_pending"),
                QueuedTransport.oauthError("authorization_pending"),
                DeviceFixture.token(),
            ], clock: clock, onRequest: { number in if number == 3 { holder.cancel() } })
        let task = Task { try await pending.credentials() }
        holder.set(task)
        let result = await task.result
        #expect(throws: AuthFlowError.self) { try result.get() }
        if case .failure(let error as AuthFlowError) = result { #expect(error.category == .cancelled) }
        #expect(transport.requests.count == 3)
    }
}

/// Cancels a task from inside the transport.
final class TaskHolder: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<OAuthCredentials, any Error>?
    private var cancelRequested = false

    func set(_ task: Task<OAuthCredentials, any Error>) {
        lock.lock()
        self.task = task
        let cancel = cancelRequested
        lock.unlock()
        if cancel { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelRequested = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}

/// Fails request number `failing` with a transport timeout, once; passes the rest on.
final class TimeoutOnceTransport: HTTPTransport, @unchecked Sendable {
    let inner: QueuedTransport
    let failing: Int
    private let lock = NSLock()
    private var failed = false

    init(inner: QueuedTransport, failing: Int) {
        self.inner = inner
        self.failing = failing
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let fail: Bool = {
            lock.lock()
            defer { lock.unlock() }
            guard !failed, inner.requests.count + 1 == failing else { return false }
            failed = true
            return true
        }()
        if fail { throw AuthFlowError(.timeout, "scripted timeout") }
        return try await inner.send(request)
    }
}
