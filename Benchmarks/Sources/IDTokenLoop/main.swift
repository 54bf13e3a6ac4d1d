import AuthFlow
import BenchmarkFixtures
import Crypto
import Dispatch
import Foundation
import _CryptoExtras

// A plain loop over the IDTokenValidation work, outside package-benchmark:
//
//   swift run -c release IDTokenLoop [iterations] [mode ...]
//
// modes: rs256 (IDTokenVerifier.verify), rs256-raw (swift-crypto only), es256, es256-raw, hs256 (a
// confidential client's HMAC-signed token), hs256-raw (HMAC only). Prints the mean time per
// token for each (IDTOKENLOOP_ROUNDS rounds, default 10). `perf record` works on it directly.
// RSA itself varies by up to 10 % between processes on this VM (placement in memory), so
// compare modes within one process and over several processes.

let fixture = try Fixture()
try await fixture.warm()
let arguments = CommandLine.arguments.dropFirst()
let iterations = arguments.first.flatMap { Int($0) } ?? 200_000
let modes = arguments.count > 1 ? Array(arguments.dropFirst()) : ["rs256", "rs256-raw", "es256", "es256-raw", "hs256", "hs256-raw"]

let secret = "a-client-secret-of-some-length-xyz"
let hs256 = try Fixture.sign(header: #"{"alg":"HS256","typ":"JWT"}"#, claims: Fixture.claimsJSON()) { input in
    Array(HMAC<SHA256>.authenticationCode(for: input, using: SymmetricKey(data: Array(secret.utf8))))
}
let hs256Verifier = IDTokenVerifier(keys: nil, clientSecret: secret)
let primitives = try fixture.rsaPublicKey.getKeyPrimitives()
let jwkKey = try _RSA.Signing.PublicKey(n: primitives.modulus, e: primitives.publicExponent)

/// One token's worth of work for `mode`.
func once(_ mode: String) async throws {
    switch mode {
    case "rs256":
        let claims = try await fixture.verifier.verify(fixture.rs256.compact, rules: fixture.rules, accessToken: nil, now: Fixture.now)
        precondition(claims.subject == "248289761001")
    case "rs256-raw":
        let token = fixture.rs256
        let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
        precondition(
            fixture.rsaPublicKey.isValidSignature(signature, for: SHA256.hash(data: token.signingInput), padding: .insecurePKCS1v1_5))
    case "rs256-raw-jwk":
        // The raw check with a key made from the JWK's n and e, as a JWK Set gives it.
        let token = fixture.rs256
        let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
        precondition(jwkKey.isValidSignature(signature, for: SHA256.hash(data: token.signingInput), padding: .insecurePKCS1v1_5))
    case "rs256-raw-inplace":
        // The raw check as the verifier calls it: the signing input hashed in place in the
        // token's UTF-8, the signature decoded into Data, the key from the JWK.
        var compact = fixture.rs256.compact
        let signature = _RSA.Signing.RSASignature(rawRepresentation: Data(fixture.rs256.signature))
        let valid = compact.withUTF8 { utf8 in
            let input = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(utf8)[..<fixture.rs256.signingInput.count])
            return jwkKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        }
        precondition(valid)
    case "es256":
        let claims = try await fixture.verifier.verify(fixture.es256.compact, rules: fixture.rules, accessToken: nil, now: Fixture.now)
        precondition(claims.subject == "248289761001")
    case "es256-raw":
        let token = fixture.es256
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: token.signature)
        precondition(fixture.p256PublicKey.isValidSignature(signature, for: SHA256.hash(data: token.signingInput)))
    case "hs256":
        let claims = try await hs256Verifier.verify(hs256.compact, rules: fixture.rules, accessToken: nil, now: Fixture.now)
        precondition(claims.subject == "248289761001")
    case "hs256-raw":
        precondition(
            HMAC<SHA256>.isValidAuthenticationCode(
                hs256.signature, authenticating: hs256.signingInput,
                using: SymmetricKey(data: Array(secret.utf8))))
    default:
        fatalError("unknown mode \(mode)")
    }
}

// Off the main actor, as an app's or a server's verification would run. The modes take
// turns, `rounds` rounds each, so that a slow spell of the shared machine hits all of them;
// each prints the median round and the fastest.
let rounds = max(1, Int(ProcessInfo.processInfo.environment["IDTOKENLOOP_ROUNDS"] ?? "") ?? 10)
let perRound = max(1, iterations / rounds)
try await Task.detached {
    for mode in modes {
        for _ in 0..<1_000 { try await once(mode) }
    }
    var times: [String: [Double]] = [:]
    for _ in 0..<rounds {
        for mode in modes {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<perRound { try await once(mode) }
            let elapsed = DispatchTime.now().uptimeNanoseconds - start
            times[mode, default: []].append(Double(elapsed) / Double(perRound) / 1_000)
        }
    }
    for mode in modes {
        let sorted = times[mode, default: []].sorted()
        let median = sorted[sorted.count / 2]
        let fastest = sorted[0]
        print(
            "\(mode): \(String(format: "%.2f", median)) µs per token (median of \(rounds) rounds of \(perRound); fastest \(String(format: "%.2f", fastest)))"
        )
    }
}.value
