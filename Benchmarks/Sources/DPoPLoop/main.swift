import AuthFlow
import Crypto
import Foundation

// The DPoPProof benchmark's two operations in a plain loop, without the harness:
// steadier minimum figures on a shared machine, and a process `perf` can profile.
// Usage: DPoPLoop [rounds] [operations per round]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rounds = arguments.first ?? 30, perRound = arguments.dropFirst().first ?? 2_000
let key = DPoPKey()
let rawKey = P256.Signing.PrivateKey()
let resource = URL(string: "https://api.example.com/v1/accounts/42?expand=owner")!
let accessToken = String(repeating: "a", count: 43)
let sample = try key.proof(method: "GET", url: resource, accessToken: accessToken)
let signingInput = Array(sample.split(separator: ".").prefix(2).joined(separator: ".").utf8)

func best(_ body: () throws -> Void) rethrows -> Double {
    var fastest = Double.infinity
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        for _ in 0..<perRound { try body() }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        fastest = min(fastest, seconds / Double(perRound) * 1e6)
    }
    return fastest
}

var sink = 0
// Interleaved, so both see the same machine load.
var proofBest = Double.infinity, rawBest = Double.infinity
for _ in 0..<3 {
    proofBest = min(proofBest, try best { sink &+= try key.proof(method: "GET", url: resource, accessToken: accessToken).utf8.count })
    rawBest = min(rawBest, try best { sink &+= try rawKey.signature(for: signingInput).rawRepresentation.count })
}
print(String(format: "proof %.2f µs  raw signature %.2f µs  ratio %.3f  (best of %d rounds × %d, sink %d)",
             proofBest, rawBest, proofBest / rawBest, rounds * 3, perRound, sink % 10))
