// swift-tools-version: 6.1
import PackageDescription

// Performance benchmarks for AuthFlow (package-benchmark).
// Run from this folder:  swift package --allow-writing-to-package-directory benchmark
let package = Package(
    name: "AuthFlowBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The Hummingbird trait: the API middleware's benchmark (AccessTokenMiddleware).
        .package(name: "AuthFlow", path: "..", traits: ["Hummingbird"]),
        // Only the malloc interposer trait: the Linux ARC runtime interposer is not needed here.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        // The ID token, keys and verifier both ID-token targets measure.
        .target(
            name: "BenchmarkFixtures",
            dependencies: [
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // A plain loop over the same work as IDTokenValidation, without the harness
        // (steadier figures, and a process `perf` can profile on its own).
        .executableTarget(
            name: "IDTokenLoop",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The runtime's own cost of waking 10 000 waiters, for reading SessionRefresh, and
        // the same shape with AuthSession callers outside the harness.
        .executableTarget(name: "FanOutBaseline", dependencies: ["BenchmarkFixtures", .product(name: "AuthFlow", package: "AuthFlow")]),
        .executableTarget(
            name: "IDTokenValidation",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Benchmarks/IDTokenValidation",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "SessionRefresh",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Benchmarks/SessionRefresh",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // DPoPProof's two operations in a plain loop (best-of-rounds figures; a process `perf` can profile).
        .executableTarget(
            name: "DPoPLoop",
            dependencies: [
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A DPoP proof against the raw P-256 signature it contains.
        .executableTarget(
            name: "DPoPProof",
            dependencies: [
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Benchmarks/DPoPProof",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The API and the access tokens both access-token targets measure.
        .target(
            name: "AccessTokenFixtures",
            dependencies: [
                "BenchmarkFixtures",
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "AuthFlowHummingbird", package: "AuthFlow"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // AccessTokenMiddleware's token checks in a plain loop, in alternating blocks
        // on the thread's CPU clock (steadier ratios on a shared machine; `perf` can profile it).
        .executableTarget(
            name: "AccessTokenLoop",
            dependencies: [
                "AccessTokenFixtures",
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "AuthFlowHummingbird", package: "AuthFlow"),
            ]
        ),
        // A JWT access token through the API middleware's rules and a request through the
        // middleware, against the raw signature check of the same token.
        .executableTarget(
            name: "AccessTokenMiddleware",
            dependencies: [
                "AccessTokenFixtures",
                "BenchmarkFixtures",
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "AuthFlowHummingbird", package: "AuthFlow"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/AccessTokenMiddleware",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
