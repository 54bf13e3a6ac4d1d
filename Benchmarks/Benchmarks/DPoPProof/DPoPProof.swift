import AuthFlow
import Benchmark
import Crypto
import Foundation

// A DPoP proof (RFC 9449 §4.2) against one raw P-256 signature of the same bytes.
//
// "proof" is `DPoPKey.proof(method:url:accessToken:)` for a resource request: the
// claims (htm, htu without query, iat, a fresh 16-byte jti, ath = SHA-256 of the
// access token), base64url, the ES256 signature and the compact serialization. The
// header is encoded once per key.
// "raw signature" is only `P256.Signing.PrivateKey.signature(for:)` over a signing
// input of the same length as the proof's.

let key = DPoPKey()
let rawKey = P256.Signing.PrivateKey()
let resource = URL(string: "https://api.example.com/v1/accounts/42?expand=owner")!
let accessToken = String(repeating: "a", count: 43)
/// A signing input the size of a proof's.
let signingInput: [UInt8] = {
    let proof = (try? key.proof(method: "GET", url: resource, accessToken: accessToken)) ?? ""
    let input = proof.split(separator: ".").prefix(2).joined(separator: ".")
    return Array(input.utf8)
}()

let benchmarks: @Sendable () -> Void = {
    var configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        warmupIterations: 200,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000
    )
    configuration.scalingFactor = .kilo
    Benchmark.defaultConfiguration = configuration

    Benchmark("DPoP proof (ES256, with ath)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try key.proof(method: "GET", url: resource, accessToken: accessToken))
        }
    }
    Benchmark("raw P-256 signature of the same bytes") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try rawKey.signature(for: signingInput))
        }
    }
}
