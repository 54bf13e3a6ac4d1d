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
        .library(name: "AuthFlowProvider", targets: ["AuthFlowProvider"]),
        // A CredentialStore in the desktop keyring of Linux (the Secret Service API).
        .library(name: "AuthFlowSecretService", targets: ["AuthFlowSecretService"]),
        // A CredentialStore shared by many instances (built with the PostgreSQL trait).
        .library(name: "AuthFlowPostgres", targets: ["AuthFlowPostgres"]),
        // Middleware for APIs on Hummingbird: access tokens, DPoP, RFC 9728, back-channel logout (Hummingbird trait).
        .library(name: "AuthFlowHummingbird", targets: ["AuthFlowHummingbird"]),
        // The Model Context Protocol swift-sdk's HTTP transport signed in by AuthFlow (MCP trait).
        .library(name: "AuthFlowMCP", targets: ["AuthFlowMCP"]),
        // The command-line tool, one file to install (built with the CLI trait).
        .executable(name: "authflow", targets: ["authflow"]),
    ],
    // Apps get the engine, the Apple layer and the loopback listener with few
    // dependencies. The embedded provider and the CLI, with the server
    // framework and the argument parser they need, are behind traits:
    //   .package(url: …, from: …, traits: ["EmbeddedProvider"])   // in a test suite
    //   swift run --traits CLI authflow demo                       // from a clone
    traits: [
        .trait(
            name: "EmbeddedProvider",
            description: "The embedded OpenID Provider (AuthFlowProvider) for test suites; adds Hummingbird and SwiftNIO."
        ),
        .trait(
            name: "PostgreSQL",
            description: "A CredentialStore in PostgreSQL shared by many instances (AuthFlowPostgres); adds postgres-nio."
        ),
        .trait(
            name: "Hummingbird",
            description: "Middleware that protects an API on Hummingbird 2 (AuthFlowHummingbird); adds Hummingbird and SwiftNIO."
        ),
        .trait(
            name: "MCP",
            description:
                "An authorizer for the Model Context Protocol swift-sdk's HTTP client transport (AuthFlowMCP) and its example client; adds the swift-sdk."
        ),
        .trait(
            name: "CLI",
            description:
                "The authflow command-line tool; adds swift-argument-parser, the embedded provider, the PostgreSQL store and the API middleware.",
            enabledTraits: ["EmbeddedProvider", "PostgreSQL", "Hummingbird"]
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        // `swift package generate-documentation`; a plugin no target uses, so apps don't resolve it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // The embedded provider only; the engine never depends on a server framework.
        // The swift-configuration trait is not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        // The PostgreSQL store only (trait PostgreSQL).
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        // AuthFlowMCP only (trait MCP).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
    ],
    targets: [
        .target(
            name: "AuthFlow",
            dependencies: [
                "AuthFlowStoredDate",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The privacy manifest App Store review reads (docs/privacy-manifest.md).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strict
        ),
        // The stored-date form, read and written in one place (FoundationEssentials
        // only) for the engine's stored files.
        .target(name: "AuthFlowStoredDate", swiftSettings: strict),
        .target(
            name: "AuthFlowApple",
            dependencies: ["AuthFlow", .product(name: "Logging", package: "swift-log")],
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: strict
        ),
        .target(
            name: "AuthFlowLoopback",
            dependencies: [
                "AuthFlow",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // A D-Bus client and the Secret Service calls a credential store needs.
        .target(
            name: "AuthFlowSecretService",
            dependencies: [
                "AuthFlow",
                // The encrypted session (HKDF, AES-CBC); already linked through AuthFlow.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .target(name: "TerminalQR", swiftSettings: strict),
        // For the CLI's static build: FoundationNetworking's libcurl calls open
        // libcurl on the first request instead of at start-up (docs/performance.md).
        .target(name: "LibcurlOnDemand"),
        .target(
            name: "AuthFlowProvider",
            dependencies: [
                "AuthFlow",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Sessions in PostgreSQL, shared by every instance of a service; its
        // files compile to nothing without the PostgreSQL trait.
        .target(
            name: "AuthFlowPostgres",
            dependencies: [
                "AuthFlow",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Middleware for APIs (access tokens, DPoP proofs, RFC 9728 metadata,
        // back-channel logout); its files compile to nothing without the Hummingbird trait.
        .target(
            name: "AuthFlowHummingbird",
            dependencies: [
                "AuthFlow",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The MCP swift-sdk's HTTPClientAuthorizer on an AuthSession; its files
        // compile to nothing without the MCP trait.
        .target(
            name: "AuthFlowMCP",
            dependencies: [
                "AuthFlow",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // An MCP client that signs in to a server by its URL alone (end-to-end
        // tests, Tests/Interop/test_mcp_swift_client.py); MCP trait.
        .executableTarget(
            name: "authflow-mcp-example",
            dependencies: [
                "AuthFlow", "AuthFlowLoopback", "AuthFlowMCP",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/MCPClient",
            swiftSettings: strict
        ),
        .target(
            name: "ExampleBackend",
            dependencies: [
                "AuthFlow",
                "AuthFlowPostgres",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/Backend",
            swiftSettings: strict
        ),
        // An API behind AuthFlowHummingbird's middleware, run by the interop tests
        // (Tests/Interop/test_api_middleware.py); without the Hummingbird trait it says so.
        .executableTarget(
            name: "example-api",
            dependencies: [
                "AuthFlow", "AuthFlowHummingbird",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Hummingbird"])),
                .product(name: "UnixSignals", package: "swift-service-lifecycle", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/API",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "authflow",
            dependencies: [
                "AuthFlow",
                "AuthFlowLoopback",
                "TerminalQR",
                .target(name: "LibcurlOnDemand", condition: .when(platforms: [.linux])),
                "AuthFlowProvider",
                "AuthFlowPostgres",
                "AuthFlowSecretService",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // What several test targets share (a log capture, an HTTP server on
        // 127.0.0.1 with the traits that bring Hummingbird); not a product.
        .target(
            name: "AuthFlowTestSupport",
            dependencies: [
                "AuthFlow",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["EmbeddedProvider", "Hummingbird"])),
                .product(
                    name: "ServiceLifecycle", package: "swift-service-lifecycle",
                    condition: .when(traits: ["EmbeddedProvider", "Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["EmbeddedProvider", "Hummingbird"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["EmbeddedProvider", "Hummingbird"])),
            ],
            path: "Tests/AuthFlowTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowTests",
            dependencies: [
                "AuthFlow",
                "AuthFlowStoredDate",
                "AuthFlowTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The Apple layer's rules and its logic against behavioural stand-ins of
        // Apple's frameworks, run on every platform (Linux included).
        .testTarget(
            name: "AuthFlowAppleTests",
            dependencies: ["AuthFlow", "AuthFlowApple"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowLoopbackTests",
            dependencies: ["AuthFlow", "AuthFlowLoopback", "AuthFlowTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // The command-line tool's own rules (profiles, the token command), through `@testable import authflow`.
        .testTarget(
            name: "AuthflowCLITests",
            dependencies: [
                "authflow", "AuthFlow", "AuthFlowStoredDate",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowSecretServiceTests",
            dependencies: ["AuthFlow", "AuthFlowSecretService"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TerminalQRTests",
            dependencies: ["TerminalQR"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowProviderTests",
            dependencies: [
                "AuthFlow", "AuthFlowLoopback", "AuthFlowProvider", "ExampleBackend", "AuthFlowTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["EmbeddedProvider"])),
                // A hostile server for the attack tests (HostileServer.swift).
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // A real Hummingbird API on 127.0.0.1 with the middleware, tokens from the embedded provider and from a test issuer.
        .testTarget(
            name: "AuthFlowHummingbirdTests",
            dependencies: [
                "AuthFlow", "AuthFlowHummingbird", "AuthFlowProvider", "AuthFlowTestSupport",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Hummingbird"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Hummingbird"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Against a real PostgreSQL server (AUTHFLOW_TEST_POSTGRES_URL, set by scripts/postgres-for-tests).
        .testTarget(
            name: "AuthFlowPostgresTests",
            dependencies: [
                "AuthFlow", "AuthFlowPostgres", "AuthFlowProvider", "ExampleBackend", "AuthFlowTestSupport",
                // Two API instances whose middleware share the PostgreSQL replay cache and end sessions on back-channel logout.
                "AuthFlowHummingbird",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Hummingbird"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The swift-sdk's HTTP client transport against a protected MCP endpoint on
        // 127.0.0.1, tokens from the embedded provider (traits MCP and EmbeddedProvider).
        .testTarget(
            name: "AuthFlowMCPTests",
            dependencies: [
                "AuthFlow", "AuthFlowMCP", "AuthFlowProvider", "AuthFlowHummingbird", "AuthFlowTestSupport",
                .product(name: "MCP", package: "swift-sdk", condition: .when(traits: ["MCP"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["EmbeddedProvider"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "AuthFlowInteropTests",
            dependencies: ["AuthFlow", "AuthFlowLoopback", "AuthFlowTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
