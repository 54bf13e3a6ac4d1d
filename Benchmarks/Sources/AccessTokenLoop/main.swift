import AccessTokenFixtures
import AuthFlow
import AuthFlowHummingbird
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The AccessTokenMiddleware benchmark's token checks in a plain loop, without the harness:
//
//   swift run -c release AccessTokenLoop [rounds] [tokens per block] [mode ...]
//
// modes: rs256 / es256 (`ProtectedResource.verify(authorization:…)`: the middleware's rules),
// rs256-jwt / es256-jwt (the engine's `JWTVerifier.verify` alone). Each round times a block
// of each mode and a block of the raw swift-crypto check of the same token, back to back
// (alternating which goes first), on this thread's CPU clock, so that time the thread spends
// descheduled by other load is not counted and both halves of a round see the same machine.
// It prints, per mode, the medians and the median of the per-round rate ratios (raw ÷ mode:
// the share of a raw verify's rate the mode reaches).

let arguments = Array(CommandLine.arguments.dropFirst())
let rounds = arguments.first.flatMap { Int($0) } ?? 40
let perBlock = arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000
let modes = arguments.count > 2 ? Array(arguments.dropFirst(2)) : ["rs256", "rs256-jwt", "es256", "es256-jwt"]

let fixture = try AccessTokenFixture()
try await fixture.warm()

/// This thread's CPU time in nanoseconds.
func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The token a mode checks.
func token(for mode: String) -> AccessTokenFixture.Token {
    mode.hasPrefix("es256") ? fixture.es256 : fixture.rs256
}

/// Microseconds per token of one block of `mode`, on this thread's CPU clock.
///
/// The block runs without suspending (the caches are warm), so the task stays on one thread.
func block(_ mode: String) async throws -> Double {
    let token = token(for: mode)
    let authorization = "Bearer " + token.compact
    let start = threadCPUTime()
    switch mode {
    case "rs256", "es256":
        for _ in 0..<perBlock {
            let verified = try await fixture.resource.verify(
                authorization: authorization, method: "GET", path: "/v1/orders", requiredScopes: ["orders:read"])
            precondition(verified.clientID == "s6BhdRkqt3")
        }
    case "rs256-jwt", "es256-jwt":
        for _ in 0..<perBlock {
            let verified = try await fixture.verifier.verify(token.compact)
            precondition(verified.subject == "248289761001")
        }
    case "rs256-raw", "es256-raw":
        for _ in 0..<perBlock { precondition(fixture.rawVerify(token)) }
    default:
        fatalError("unknown mode \(mode)")
    }
    return Double(threadCPUTime() - start) / Double(perBlock) / 1_000
}

try await Task.detached {
    for mode in modes {
        _ = try await block(mode)
        _ = try await block(String(mode.prefix(5)) + "-raw")
    }
    for mode in modes {
        let raw = String(mode.prefix(5)) + "-raw"
        var times: [Double] = []
        var rawTimes: [Double] = []
        var ratios: [Double] = []
        for round in 0..<rounds {
            let (t, r) = round % 2 == 0 ? (try await block(mode), try await block(raw)) : swap(try await block(raw), try await block(mode))
            times.append(t)
            rawTimes.append(r)
            ratios.append(r / t)
        }
        print(
            String(
                format: "%@: %.2f µs, raw %.2f µs, rate %.1f %% of raw (median of %d rounds × %d; best %.2f / %.2f µs)",
                mode, median(times), median(rawTimes), median(ratios) * 100, rounds, perBlock, times.min() ?? 0, rawTimes.min() ?? 0))
    }
}.value

/// `(b, a)`: the raw block ran first.
func swap(_ a: Double, _ b: Double) -> (Double, Double) { (b, a) }
