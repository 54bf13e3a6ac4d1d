import AuthFlow
import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// The DPoPProof benchmark's two operations in a plain loop, without the harness:
// a process `perf` can profile, and figures that hold on a shared machine.
//
// Each round times a block of proofs and a block of raw signatures back to back
// (alternating which goes first), on this thread's CPU clock, so time the thread
// spends descheduled by other load is not counted, and both halves of a round
// see the same machine. It prints the medians and the median of the per-round
// ratios.
// Usage: DPoPLoop [rounds] [operations per block]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.first ?? 60
let perBlock = arguments.dropFirst().first ?? 500
let key = DPoPKey()
let rawKey = P256.Signing.PrivateKey()
let resource = URL(string: "https://api.example.com/v1/accounts/42?expand=owner")!
let accessToken = String(repeating: "a", count: 43)
let sample = try key.proof(method: "GET", url: resource, accessToken: accessToken)
let signingInput = Array(sample.split(separator: ".").prefix(2).joined(separator: ".").utf8)

/// This thread's CPU time in nanoseconds.
func threadCPUTime() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Microseconds per operation of one block of `body`.
func block(_ body: () throws -> Void) rethrows -> Double {
    let start = threadCPUTime()
    for _ in 0..<perBlock { try body() }
    return Double(threadCPUTime() - start) / Double(perBlock) / 1_000
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

var sink = 0
let proof = { sink &+= try key.proof(method: "GET", url: resource, accessToken: accessToken).utf8.count }
let raw = { sink &+= try rawKey.signature(for: signingInput).rawRepresentation.count }
// Warm up both.
_ = try block(proof)
_ = try block(raw)
var proofTimes: [Double] = []
var rawTimes: [Double] = []
var ratios: [Double] = []
for round in 0..<rounds {
    let p: Double
    let r: Double
    if round % 2 == 0 {
        p = try block(proof)
        r = try block(raw)
    } else {
        r = try block(raw)
        p = try block(proof)
    }
    proofTimes.append(p)
    rawTimes.append(r)
    ratios.append(p / r)
}
print(
    String(
        format: "proof %.2f µs  raw signature %.2f µs  ratio %.3f (median of %d rounds × %d each; best %.2f / %.2f µs) sink %d",
        median(proofTimes), median(rawTimes), median(ratios), rounds, perBlock,
        proofTimes.min() ?? 0, rawTimes.min() ?? 0, sink % 10))
