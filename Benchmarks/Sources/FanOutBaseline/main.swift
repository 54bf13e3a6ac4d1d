import AuthFlow
import BenchmarkFixtures
import Dispatch
import Foundation

// The floor under the SessionRefresh figures. `task`: without AuthFlow, 10 000
// unstructured tasks await one Task's value, which becomes available after 6 ms (about
// the benchmark's refresh round trip). `session`: the same shape with AuthFlow, 10 000
// unstructured tasks call `freshAccessToken()` on an expired `AuthSession` whose token
// endpoint is an in-memory transport that answers after 6 ms (no sockets, no harness).
// Per caller: completion − max(its start, the moment the value was ready, or the
// response left the transport), the same "added latency" SessionRefresh reports.
//
//   swift run -c release FanOutBaseline [rounds] [task|session ...]

let callers = 10_000
let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20
let modes = CommandLine.arguments.count > 2 ? Array(CommandLine.arguments.dropFirst(2)) : ["task", "session"]

final class ReadyTime: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0
    func set(_ new: UInt64) { lock.withLock { value = new } }
    var current: UInt64 { lock.withLock { value } }
}

/// A token endpoint in memory: answers every request after 6 ms with new tokens, and
/// notes when the response left it and how many requests it got.
final class DelayedTokenEndpoint: HTTPTransport, @unchecked Sendable {
    let ready = ReadyTime()
    private let lock = NSLock()
    private var count = 0
    var requests: Int { lock.withLock { count } }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        try await Task.sleep(nanoseconds: 6_000_000)
        let n = lock.withLock {
            count += 1
            return count
        }
        let body = #"{"access_token":"at-\#(n)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(n)"}"#
        ready.set(nowNanos())
        return HTTPTransportResponse(status: 200, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
    }
}

/// One round of `callers` tasks, each running `call`; returns their added latencies.
func fanOut(ready: ReadyTime, _ call: @escaping @Sendable () async throws -> String) async -> [UInt64] {
    let slots = OutcomeSlots(count: callers)
    await fanOut(into: slots, call)
    let outcomes = slots.outcomes()
    precondition(outcomes.count == callers && outcomes.allSatisfy { $0.token?.isEmpty == false }, "every caller got a token")
    let readyAt = ready.current
    return outcomes.map { $0.addedLatency(after: readyAt) }
}

for mode in modes {
    var added: [UInt64] = []
    // One more round than reported: the first of each mode grows the heap and is dropped.
    for round in 0...rounds {
        if round == 1 { added = [] }
        switch mode {
        case "task":
            let ready = ReadyTime()
            let value = Task { () -> String in
                try? await Task.sleep(nanoseconds: 6_000_000)
                ready.set(nowNanos())
                return "token"
            }
            added += await fanOut(ready: ready) { await value.value }
        case "session":
            let endpoint = DelayedTokenEndpoint()
            let metadata = ProviderMetadata(
                issuer: nil, authorizationEndpoint: URL(string: "https://id.example.com/authorize")!,
                tokenEndpoint: URL(string: "https://id.example.com/token")!)
            let client = try OAuthClient(metadata: metadata, clientID: "bench-client", transport: endpoint)
            let json = #"{"access_token":"at-expired","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-0"}"#
            var token = try TokenResponse(json: Data(json.utf8), requestedScopes: [])
            token.expiresAt = Date(timeIntervalSinceNow: -3600)
            let session = AuthSession(
                client: client,
                store: MemoryCredentialStore(
                    SessionRecord(
                        credentials: OAuthCredentials(issuer: nil, clientID: "bench-client", token: token, idToken: nil), client: client)))
            added += await fanOut(ready: endpoint.ready) { try await session.freshAccessToken() }
            precondition(endpoint.requests == 1, "one token request per round")
        default:
            fatalError("unknown mode \(mode)")
        }
    }
    let sorted = added.sorted()
    func percentile(_ p: Double) -> Double { Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1_000_000 }
    print(
        String(
            format: "%@: %d rounds × %d callers: added latency p0 %.2f ms, p50 %.2f ms, p99 %.2f ms, max %.2f ms",
            mode, rounds, callers, percentile(0), percentile(0.5), percentile(0.99), Double(sorted.last ?? 0) / 1_000_000))
}
