import AuthFlow
import Benchmark
import BenchmarkFixtures
import Dispatch
import Foundation
import NIOCore

// 10 000 concurrent callers of `AuthSession.freshAccessToken()` on a session
// whose access token has expired. The token endpoint is a real HTTP server on
// 127.0.0.1 (NIO, TokenServer.swift) that answers after `serverDelay`; AuthFlow
// reaches it through its default URLSessionTransport.
//
// Per iteration (a new session each time):
//  - wall clock: the whole fan-out, from the first caller starting to the last one returning;
//  - precondition: the server saw exactly one token request, and every caller got its token;
//  - custom metric "added latency per caller (µs)": for each of the 10 000 callers,
//    its completion time minus max(its start time, the moment the refresh response
//    came back out of URLSessionTransport.send). That is the wait a caller had
//    beyond the refresh itself: response parsing, saving to the store, and
//    handing the result to every waiting caller. 10 000 samples per iteration;
//    the percentiles in the table are over all callers of all iterations.
//  - custom metric "caller latency minus refresh round trip (µs)": the other reading of
//    "beyond the refresh": (end - start) of each caller minus the refresh's round trip.
//    It also counts the time the caller and the refresh task spent queued behind the
//    other 9 999 callers on the 2-core machine before the request went out.
//  - custom metric "refresh round trip (µs)": request sent -> response back from the transport.
//  - custom metric "callers started after the response": callers whose task only
//    began after the response arrived (they count their whole call as added latency).

let callers = 10_000
let serverDelay = TimeAmount.milliseconds(5)

extension BenchmarkMetric {
    static let addedLatency = BenchmarkMetric.custom("added latency per caller (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let latencyMinusRefresh = BenchmarkMetric.custom(
        "caller latency minus refresh round trip (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let refreshRoundTrip = BenchmarkMetric.custom("refresh round trip (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let lateCallers = BenchmarkMetric.custom(
        "callers started after the response", polarity: .prefersSmaller, useScalingFactor: false)
}

/// The default URLSessionTransport, with the start and end of the last `send` stamped.
final class TimedTransport: HTTPTransport, @unchecked Sendable {
    private let inner = URLSessionTransport()
    private let lock = NSLock()
    private var sent: UInt64 = 0
    private var arrived: UInt64 = 0

    var lastExchange: (sent: UInt64, arrived: UInt64) { lock.withLock { (sent, arrived) } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let start = nowNanos()
        let response = try await inner.send(request)
        let end = nowNanos()
        lock.withLock {
            sent = start
            arrived = end
        }
        return response
    }
}

/// The server and client shared by all iterations.
struct RefreshFixture: Sendable {
    let server: TokenServer
    let transport: TimedTransport
    let client: OAuthClient

    static func make() async throws -> RefreshFixture {
        let server = try await TokenServer.start(delay: serverDelay)
        let transport = TimedTransport()
        let metadata = ProviderMetadata(
            issuer: nil, authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
            tokenEndpoint: server.tokenURL)
        let client = try OAuthClient(metadata: metadata, clientID: "bench-client", transport: transport)
        return RefreshFixture(server: server, transport: transport, client: client)
    }

    /// Credentials whose access token expired an hour ago, with a refresh token and no ID token.
    static func expiredCredentials() throws -> OAuthCredentials {
        let json = #"{"access_token":"at-expired","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-0","scope":"openid profile"}"#
        var token = try TokenResponse(json: Data(json.utf8), requestedScopes: ["openid", "profile"])
        token.expiresAt = Date(timeIntervalSinceNow: -3600)
        return OAuthCredentials(issuer: nil, clientID: "bench-client", token: token, idToken: nil)
    }
}

/// Holds the fixture so teardown can stop the server.
final class FixtureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var fixture: RefreshFixture?
    func set(_ value: RefreshFixture?) { lock.withLock { fixture = value } }
    func take() -> RefreshFixture? {
        lock.withLock {
            defer { fixture = nil }
            return fixture
        }
    }
}

let fixtureBox = FixtureBox()

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "10k concurrent freshAccessToken() on expired session",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, .addedLatency, .latencyMinusRefresh, .refreshRoundTrip, .lateCallers],
            timeUnits: .milliseconds,
            warmupIterations: 3,
            maxDuration: .seconds(20),
            maxIterations: 60
        ),
        closure: { (benchmark: Benchmark, fixture: RefreshFixture) async in
            let expired: OAuthCredentials
            do { expired = try RefreshFixture.expiredCredentials() } catch { fatalError("\(error)") }
            let session = AuthSession(
                client: fixture.client, store: MemoryCredentialStore(SessionRecord(credentials: expired, client: fixture.client)))
            let requestsBefore = fixture.server.requests

            // Each caller is an unstructured task that writes what it saw into its own slot.
            let slots = OutcomeSlots(count: callers)
            benchmark.startMeasurement()
            await fanOut(into: slots) { try await session.freshAccessToken() }
            benchmark.stopMeasurement()
            let outcomes = slots.outcomes()

            let requests = fixture.server.requests - requestsBefore
            precondition(requests == 1, "the token endpoint saw \(requests) requests in one iteration, expected exactly 1")
            let expected = "at-\(fixture.server.requests)"
            precondition(
                outcomes.count == callers && outcomes.allSatisfy { $0.token == expected },
                "not every caller got the refreshed token \(expected)")

            let (sent, arrived) = fixture.transport.lastExchange
            benchmark.measurement(.refreshRoundTrip, Int((arrived - sent) / 1_000))
            var late = 0
            for outcome in outcomes {
                if outcome.start > arrived { late += 1 }
                benchmark.measurement(.addedLatency, Int(outcome.addedLatency(after: arrived) / 1_000))
                let total = outcome.end - outcome.start
                let refresh = arrived - sent
                benchmark.measurement(.latencyMinusRefresh, Int((total > refresh ? total - refresh : 0) / 1_000))
            }
            benchmark.measurement(.lateCallers, late)
        },
        setup: {
            let fixture = try await RefreshFixture.make()
            fixtureBox.set(fixture)
            return fixture
        },
        teardown: {
            try await fixtureBox.take()?.server.stop()
        }
    )
}
