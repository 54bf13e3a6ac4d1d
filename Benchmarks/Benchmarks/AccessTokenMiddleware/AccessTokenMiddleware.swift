import AccessTokenFixtures
import AuthFlow
import AuthFlowHummingbird
import Benchmark
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import _CryptoExtras

// An API's access-token checks (AuthFlowHummingbird) against the raw signature
// check of the same token.
//
// "raw swift-crypto verify" is only what any verifier must do: wrap the signature
// bytes, SHA-256 the signing input, check the signature.
// "through the middleware's rules" is `ProtectedResource.verify(authorization:…)`:
// the Authorization field, the compact JWS, the algorithm, the key from the
// (already filled) JWK Set cache, the signature, `typ` at+jwt, iss, aud, exp, nbf,
// iat, client_id, sub, cnf, and the route's scopes.
// "request through the middleware" is `AccessTokenMiddleware.handle`: the same,
// reading the fields of a Hummingbird request, the token into the request
// context, then the route (which answers 200 with no body).
// "opaque token, introspection cache hit" is a request whose opaque token's
// introspection answer is cached: the cache lookup alone, through the middleware.

let fixture: AccessTokenFixture = {
    do { return try AccessTokenFixture() } catch { fatalError("fixture: \(error)") }
}()

let context = BenchmarkContext(source: .init(logger: Logger(label: "benchmark")))

func makeRequest(authorization: String) -> Request {
    var head = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/orders")
    head.headerFields[.authorization] = authorization
    return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
}

@Sendable func route(_ request: Request, _ context: BenchmarkContext) async throws -> Response {
    precondition(context.accessToken != nil)
    return Response(status: .ok)
}

let benchmarks: @Sendable () -> Void = {
    var configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        warmupIterations: 200,
        maxDuration: .seconds(3),
        maxIterations: 1_000_000,
        setup: { try await fixture.warm() }
    )
    // 1 000 tokens per sample (results per token): the harness's own work stays out of the ratio.
    configuration.scalingFactor = .kilo
    Benchmark.defaultConfiguration = configuration

    for token in [fixture.es256, fixture.rs256] {
        let name = token.algorithm
        Benchmark("\(name) raw swift-crypto verify") { benchmark in
            for _ in benchmark.scaledIterations {
                let valid = fixture.rawVerify(token)
                precondition(valid)
                blackHole(valid)
            }
        }
        Benchmark("\(name) access token through the middleware's rules") { benchmark in
            let authorization = "Bearer " + token.compact
            for _ in benchmark.scaledIterations {
                blackHole(
                    try await fixture.resource.verify(
                        authorization: authorization, method: "GET", path: "/v1/orders", requiredScopes: ["orders:read"]))
            }
        }
        Benchmark("\(name) request through the middleware") { benchmark in
            let request = makeRequest(authorization: "Bearer " + token.compact)
            for _ in benchmark.scaledIterations {
                let response = try await fixture.middleware.handle(request, context: context, next: route)
                precondition(response.status == .ok)
                blackHole(response)
            }
        }
    }
    Benchmark("opaque token request through the middleware (introspection cache hit)") { benchmark in
        let request = makeRequest(authorization: "Bearer " + AccessTokenFixture.opaqueToken)
        for _ in benchmark.scaledIterations {
            let response = try await fixture.middleware.handle(request, context: context, next: route)
            precondition(response.status == .ok)
            blackHole(response)
        }
    }
}
