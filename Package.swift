// swift-tools-version: 6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "AuthFlow",
    platforms: [
        .iOS(.v16), .macCatalyst(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1),
    ],
    products: [
        .library(name: "AuthFlow", targets: ["AuthFlow"]),
        .library(name: "AuthFlowLoopback", targets: ["AuthFlowLoopback"]),
        .library(name: "AuthFlowApple", targets: ["AuthFlowApple"]),
        .library(name: "TerminalQR", targets: ["TerminalQR"]),
        .library(name: "AuthFlowProvider", targets: ["AuthFlowProvider"]),
        // `authflow` answers `authflow token` for a valid token itself and runs
        // `authflow-core`, the full tool, installed beside it, for everything else.
        .executable(name: "authflow", targets: ["authflow-front"]),
        .executable(name: "authflow-core", targets: ["authflow-core"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // The embedded provider only; the engine never depends on a server framework.
        // The swift-configuration trait is not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    ],
    targets: [
        .target(
            name: "AuthFlow",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "AuthFlowApple",
            dependencies: ["AuthFlow"],
            swiftSettings: strict
        ),
        .target(
            name: "AuthFlowLoopback",
            dependencies: [
                "AuthFlow",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .target(name: "TerminalQR", swiftSettings: strict),
        .target(
            name: "AuthFlowProvider",
            dependencies: [
                "AuthFlow",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "ExampleBackend",
            dependencies: [
                "AuthFlow",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Backend",
            swiftSettings: strict
        ),
        // Foundation-free (FoundationEssentials only): the profile location and
        // the stored-token check, shared by `authflow` and `authflow-core`.
        .target(name: "ProfileToken", swiftSettings: strict),
        // Imports no Foundation and no ArgumentParser, so that it maps neither
        // (nor libcurl). No dependency on `authflow-core`: SwiftPM would link
        // that target's libraries into it; `swift build` builds both.
        .executableTarget(
            name: "authflow-front",
            dependencies: ["ProfileToken"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "authflow-core",
            dependencies: [
                "ProfileToken",
                "AuthFlow",
                "AuthFlowLoopback",
                "TerminalQR",
                "AuthFlowProvider",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/authflow",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowTests",
            dependencies: [
                "AuthFlow",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowLoopbackTests",
            dependencies: ["AuthFlow", "AuthFlowLoopback"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ProfileTokenTests",
            dependencies: ["ProfileToken", "AuthFlow"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TerminalQRTests",
            dependencies: ["TerminalQR"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowProviderTests",
            dependencies: ["AuthFlow", "AuthFlowLoopback", "AuthFlowProvider", "ExampleBackend",
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "InteropTests",
            dependencies: ["AuthFlow", "AuthFlowLoopback", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
