import AuthFlow
import Benchmark
import BenchmarkFixtures
import Crypto
import Foundation
import _CryptoExtras

// ID-token validation against the raw swift-crypto signature check it is built on.
//
// "full validation" is `IDTokenVerifier.verify(_:rules:accessToken:now:)`: parse the
// compact JWS, check the algorithm, look the key up in the (already filled) JWK Set
// cache, verify the signature, read the claims and check the OIDC rules.
// "raw verify" is only what any verifier must do with swift-crypto: wrap the
// signature bytes, SHA-256 the signing input, check the signature.
// The "part:" benchmarks time pieces of the difference that the public API reaches
// (the benchmarks measure only through the public API).

let fixture: Fixture = {
    do { return try Fixture() } catch { fatalError("fixture: \(error)") }
}()

/// The RS256 token's claims, parsed once (through the public `Codable` conformance), for the claims-only part.
let parsedClaims: [String: JSONMemberValue] = {
    do { return try JSONDecoder().decode([String: JSONMemberValue].self, from: Data(Fixture.claimsJSON().utf8)) } catch {
        fatalError("fixture: \(error)")
    }
}()

let benchmarks: @Sendable () -> Void = {
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        warmupIterations: 200,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000,
        setup: { try await fixture.warm() }
    )
    Benchmark.defaultConfiguration = configuration
    // The four comparisons measure 1 000 tokens per sample (results are shown per
    // token): per-sample harness work and timer reads then stay out of the ratio.
    var perThousand = configuration
    perThousand.scalingFactor = .kilo

    // MARK: RS256

    Benchmark("RS256 full validation", configuration: perThousand) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.verifier.verify(fixture.rs256.compact, rules: fixture.rules, accessToken: nil, now: Fixture.now))
        }
    }

    Benchmark("RS256 raw swift-crypto verify", configuration: perThousand) { benchmark in
        let key = fixture.rsaPublicKey
        let token = fixture.rs256
        for _ in benchmark.scaledIterations {
            let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
            let valid = key.isValidSignature(signature, for: SHA256.hash(data: token.signingInput), padding: .insecurePKCS1v1_5)
            precondition(valid)
            blackHole(valid)
        }
    }

    // MARK: ES256

    Benchmark("ES256 full validation", configuration: perThousand) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.verifier.verify(fixture.es256.compact, rules: fixture.rules, accessToken: nil, now: Fixture.now))
        }
    }

    Benchmark("ES256 raw swift-crypto verify", configuration: perThousand) { benchmark in
        let key = fixture.p256PublicKey
        let token = fixture.es256
        for _ in benchmark.scaledIterations {
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: token.signature)
            let valid = key.isValidSignature(signature, for: SHA256.hash(data: token.signingInput))
            precondition(valid)
            blackHole(valid)
        }
    }

    // MARK: Parts of the full validation (RS256 token)

    Benchmark(
        "part: claims (IDTokenClaims + IDTokenRules.check)",
        configuration: .init(setup: {
            try await fixture.warm()
            _ = parsedClaims
        })
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            let claims = try IDTokenClaims(claims: parsedClaims)
            try fixture.rules.check(claims, now: Fixture.now)
            blackHole(claims)
        }
    }

    Benchmark("part: cached JWK Set lookup (KeySetCache.keySet)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await fixture.keys.keySet())
        }
    }
}
