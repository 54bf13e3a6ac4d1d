// swift-tools-version: 6.1
import PackageDescription

// Read top-down: the products, the traits that gate some of them, the
// packages they use, then the targets, grouped by the product they make.

let package = Package(
    name: "AuthFlow",
    platforms: [
        .iOS(.v16), .macCatalyst(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1),
    ],
    products: [
        // What apps use, with no trait: swift-crypto and swift-log only.
        .library(name: "AuthFlow", targets: ["AuthFlow"]),
        .library(name: "AuthFlowApple", targets: ["AuthFlowApple"]),
        .library(name: "AuthFlowLoopback", targets: ["AuthFlowLoopback"]),
        .library(name: "AuthFlowSecretService", targets: ["AuthFlowSecretService"]),
        // Each behind the trait whose description names it (below).
        .library(name: "AuthFlowProvider", targets: ["AuthFlowProvider"]),
        .library(name: "AuthFlowPostgres", targets: ["AuthFlowPostgres"]),
        .library(name: "AuthFlowHummingbird", targets: ["AuthFlowHummingbird"]),
        .library(name: "AuthFlowMCP", targets: ["AuthFlowMCP"]),
        .executable(name: "authflow", targets: ["authflow"]),
        .executable(name: "authflow-postgresql", targets: ["authflow-postgresql"]),
    ],
    // A product behind a trait, used without it, builds but names the trait:
    // its main types are unavailable with a message saying how to enable it
    // (each target's WithoutTheTrait.swift), and `authflow` prints it.
    //   .package(url: …, from: …, traits: ["EmbeddedProvider"])   // in a test suite
    //   swift run --traits CLI authflow demo                       // from a clone
    traits: [
        .trait(
            name: "EmbeddedProvider",
            description:
                "The embedded OpenID Provider (AuthFlowProvider) for test suites; adds Hummingbird and SwiftNIO, and the API middleware its demo API uses.",
            enabledTraits: ["Hummingbird"]
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
            name: "AsyncHTTPClient",
            description:
                "On Linux, the engine's transport is AsyncHTTPClientTransport (swift-server/async-http-client) and neither FoundationNetworking nor libcurl is linked; adds SwiftNIO and swift-nio-ssl."
        ),
        .trait(
            name: "CLI",
            description:
                "The authflow command-line tool; adds swift-argument-parser, the embedded provider, the PostgreSQL store, the API middleware and, on Linux, the AsyncHTTPClient transport.",
            enabledTraits: ["EmbeddedProvider", "PostgreSQL", "Hummingbird", "AsyncHTTPClient"]
        ),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        // `swift package generate-documentation`; a plugin no target uses, so apps don't resolve it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The rest is used only behind traits, so an app's graph never holds it.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        // Neither of Hummingbird's default traits is needed: swift-configuration,
        // and FullFoundation (a DateFormatter strategy for URL-encoded forms),
        // which links swift-corelibs-foundation (docs/performance.md, "Size").
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", from: "0.12.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.27.0"),
    ],
    targets: [],
    swiftLanguageModes: [.v6]
)

// MARK: - AuthFlow: the engine

// The engine's privacy manifest is for Apple platforms. A target with resources
// gets a `Bundle.module` accessor, and on Linux `Bundle` is
// swift-corelibs-foundation's: it would link all of that library and ICU's data
// into every server built on the engine, which otherwise needs
// FoundationEssentials alone (docs/performance.md, "Size";
// scripts/check-foundation-roots). The manifest is evaluated on the build host,
// which for an Apple platform is a Mac.
#if os(Linux)
let engineResources: [Resource] = []
let engineResourcesExcluded = ["PrivacyInfo.xcprivacy"]
#else
let engineResources: [Resource] = [.copy("PrivacyInfo.xcprivacy")]
let engineResourcesExcluded: [String] = []
#endif

package.targets += [
    .target(
        name: "AuthFlow",
        dependencies: ["AuthFlowStoredDate", crypto, cryptoExtras, logging] + linuxHTTPClient,
        exclude: engineResourcesExcluded,
        // The privacy manifest App Store review reads (docs/privacy-manifest.md).
        resources: engineResources,
        swiftSettings: strict
    ),
    // The stored-date form, read and written in one place (FoundationEssentials
    // only) for the engine's stored files.
    .target(name: "AuthFlowStoredDate", swiftSettings: strict),
    .testTarget(
        name: "AuthFlowTests",
        dependencies: ["AuthFlow", "AuthFlowStoredDate", "AuthFlowTestSupport", logging, crypto, cryptoExtras],
        swiftSettings: strict
    ),
    .testTarget(
        name: "AuthFlowInteropTests",
        dependencies: ["AuthFlow", "AuthFlowLoopback", "AuthFlowTestSupport", logging],
        swiftSettings: strict
    ),
]

// MARK: - AuthFlowApple, AuthFlowLoopback, AuthFlowSecretService: apps

package.targets += [
    .target(
        name: "AuthFlowApple",
        dependencies: ["AuthFlow", logging],
        resources: [.copy("PrivacyInfo.xcprivacy")],
        swiftSettings: strict
    ),
    // The Apple layer's rules and its logic against behavioural stand-ins of
    // Apple's frameworks, run on every platform (Linux included).
    .testTarget(name: "AuthFlowAppleTests", dependencies: ["AuthFlow", "AuthFlowApple"], swiftSettings: strict),
    .target(name: "AuthFlowLoopback", dependencies: ["AuthFlow", logging], swiftSettings: strict),
    .testTarget(
        name: "AuthFlowLoopbackTests",
        dependencies: ["AuthFlow", "AuthFlowLoopback", "AuthFlowTestSupport", logging],
        swiftSettings: strict
    ),
    // A D-Bus client and the Secret Service calls a credential store needs;
    // its encrypted session (HKDF, AES-CBC) uses swift-crypto, already linked through AuthFlow.
    .target(name: "AuthFlowSecretService", dependencies: ["AuthFlow", crypto, cryptoExtras], swiftSettings: strict),
    .testTarget(
        name: "AuthFlowSecretServiceTests", dependencies: ["AuthFlow", "AuthFlowSecretService", "AuthFlowTestSupport"],
        swiftSettings: strict),
]

// MARK: - AuthFlowProvider (EmbeddedProvider)

package.targets += [
    .target(
        name: "AuthFlowProvider",
        // The middleware's rules and replay cache serve its demo API (EmbeddedProvider enables Hummingbird).
        dependencies: ["AuthFlow", "AuthFlowHummingbird", crypto, cryptoExtras, logging] + server(when: ["EmbeddedProvider"], signals: true)
            + [traitProduct("NIOConcurrencyHelpers", "swift-nio", when: ["EmbeddedProvider"])],
        swiftSettings: strict
    ),
    // The seed flows the provider's tests run against a backend.
    .target(
        name: "ExampleBackend",
        dependencies: ["AuthFlow", "AuthFlowPostgres", crypto, logging] + server(when: ["EmbeddedProvider"], httpTypes: false),
        path: "Examples/Backend",
        swiftSettings: strict
    ),
    .testTarget(
        name: "AuthFlowProviderTests",
        // A hostile server for the attack tests (HostileServer.swift).
        dependencies: [
            "AuthFlow", "AuthFlowLoopback", "AuthFlowProvider", "ExampleBackend", "AuthFlowTestSupport", logging, crypto, cryptoExtras,
        ] + server(when: ["EmbeddedProvider"]),
        swiftSettings: strict
    ),
]

// MARK: - AuthFlowPostgres (PostgreSQL)

package.targets += [
    // Sessions in PostgreSQL, shared by every instance of a service.
    .target(
        name: "AuthFlowPostgres",
        dependencies: ["AuthFlow", postgres, crypto, logging],
        swiftSettings: strict
    ),
    // Against a real PostgreSQL server (AUTHFLOW_TEST_POSTGRES_URL, set by scripts/postgres-for-tests);
    // two API instances whose middleware share the replay cache and end sessions on back-channel logout.
    .testTarget(
        name: "AuthFlowPostgresTests",
        dependencies: [
            "AuthFlow", "AuthFlowPostgres", "AuthFlowProvider", "ExampleBackend", "AuthFlowTestSupport", "AuthFlowHummingbird",
            traitProduct("Hummingbird", "hummingbird", when: ["Hummingbird"]),
            traitProduct("ServiceLifecycle", "swift-service-lifecycle", when: ["EmbeddedProvider"]),
            postgres, crypto, logging,
        ],
        swiftSettings: strict
    ),
]

// MARK: - AuthFlowHummingbird (Hummingbird)

package.targets += [
    // Access tokens, DPoP proofs, RFC 9728 metadata, back-channel logout.
    .target(
        name: "AuthFlowHummingbird",
        dependencies: ["AuthFlow", crypto, logging] + server(when: ["Hummingbird"], lifecycle: false),
        swiftSettings: strict
    ),
    // An API behind the middleware, run by Tests/Interop/test_api_middleware.py.
    .executableTarget(
        name: "example-api",
        dependencies: ["AuthFlow", "AuthFlowHummingbird", logging] + server(when: ["Hummingbird"], httpTypes: false, signals: true),
        path: "Examples/API",
        exclude: ["README.md"],
        swiftSettings: strict
    ),
    // A real API on 127.0.0.1, tokens from the embedded provider and from a test issuer.
    .testTarget(
        name: "AuthFlowHummingbirdTests",
        dependencies: ["AuthFlow", "AuthFlowHummingbird", "AuthFlowProvider", "AuthFlowTestSupport", crypto, cryptoExtras, logging]
            + server(when: ["Hummingbird"], httpTypes: false),
        swiftSettings: strict
    ),
]

// MARK: - AuthFlowMCP (MCP)

package.targets += [
    // The swift-sdk's HTTPClientAuthorizer on an AuthSession.
    .target(name: "AuthFlowMCP", dependencies: ["AuthFlow", mcp, logging], swiftSettings: strict),
    // A client that signs in to an MCP server by its URL alone (Tests/Interop/test_mcp_swift_client.py).
    .executableTarget(
        name: "authflow-mcp-example",
        dependencies: ["AuthFlow", "AuthFlowLoopback", "AuthFlowMCP", mcp, logging],
        path: "Examples/MCPClient",
        swiftSettings: strict
    ),
    // Against a protected MCP endpoint on 127.0.0.1, tokens from the embedded provider.
    .testTarget(
        name: "AuthFlowMCPTests",
        dependencies: ["AuthFlow", "AuthFlowMCP", "AuthFlowProvider", "AuthFlowHummingbird", "AuthFlowTestSupport", mcp, logging]
            + server(when: ["EmbeddedProvider"]),
        swiftSettings: strict
    ),
]

// MARK: - authflow (CLI)

package.targets += [
    .executableTarget(
        name: "authflow",
        dependencies: [
            "AuthFlow", "AuthFlowLoopback", "AuthFlowSecretService", "AuthFlowProvider", "AuthFlowStoreHelper", "TerminalQR",
            argumentParser, logging,
        ],
        swiftSettings: strict
    ),
    // The PostgreSQL store, in a program of its own that `authflow` starts:
    // PostgresNIO links swift-corelibs-foundation and ICU (docs/performance.md, "Size").
    .executableTarget(
        name: "authflow-postgresql",
        dependencies: [
            "AuthFlow", "AuthFlowPostgres", "AuthFlowStoreHelper",
            .target(name: "AuthFlowICUData", condition: .when(platforms: [.linux])), postgres, logging,
        ],
        swiftSettings: strict
    ),
    // What `authflow` and its store helper say to each other, and both ends.
    .target(name: "AuthFlowStoreHelper", dependencies: ["AuthFlow", "AuthFlowLoopback"], swiftSettings: strict),
    .target(name: "TerminalQR", swiftSettings: strict),
    // The release build's reduced ICU data (packaging/build-linux); an empty object otherwise.
    .target(name: "AuthFlowICUData"),
    .testTarget(name: "TerminalQRTests", dependencies: ["TerminalQR"], swiftSettings: strict),
    // The tool's own rules (profiles, the token command), through `@testable import authflow`.
    .testTarget(
        name: "AuthflowCLITests",
        dependencies: ["authflow", "AuthFlow", "AuthFlowStoredDate", "AuthFlowTestSupport", argumentParser],
        swiftSettings: strict
    ),
]

// MARK: - Shared by the tests

package.targets += [
    // A log capture, an HTTP server on 127.0.0.1 (with either trait that brings Hummingbird); not a product.
    .target(
        name: "AuthFlowTestSupport",
        dependencies: ["AuthFlow", logging] + server(when: ["EmbeddedProvider", "Hummingbird"]),
        path: "Tests/AuthFlowTestSupport",
        swiftSettings: strict
    )
]

// MARK: - Helpers

/// Every Swift target's settings.
var strict: [SwiftSetting] {
    [
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("InternalImportsByDefault"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}

var crypto: Target.Dependency { .product(name: "Crypto", package: "swift-crypto") }
var cryptoExtras: Target.Dependency { .product(name: "_CryptoExtras", package: "swift-crypto") }
var logging: Target.Dependency { .product(name: "Logging", package: "swift-log") }
var argumentParser: Target.Dependency { traitProduct("ArgumentParser", "swift-argument-parser", when: ["CLI"]) }
var postgres: Target.Dependency { traitProduct("PostgresNIO", "postgres-nio", when: ["PostgreSQL"]) }
var mcp: Target.Dependency { traitProduct("MCP", "swift-sdk", when: ["MCP"]) }

/// The engine's transport on Linux with the AsyncHTTPClient trait (AsyncHTTPClientTransport).
var linuxHTTPClient: [Target.Dependency] {
    [
        ("AsyncHTTPClient", "async-http-client"), ("NIOCore", "swift-nio"), ("NIOHTTP1", "swift-nio"), ("NIOPosix", "swift-nio"),
        ("NIOSSL", "swift-nio-ssl"),
    ]
    .map { .product(name: $0.0, package: $0.1, condition: .when(platforms: [.linux], traits: ["AsyncHTTPClient"])) }
}

/// A product linked only when one of `traits` is enabled.
func traitProduct(_ name: String, _ package: String, when traits: Set<String>) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: traits))
}

/// The server stack (Hummingbird, SwiftNIO's core, the HTTP types, service
/// lifecycle), linked only when one of `traits` is enabled.
func server(when traits: Set<String>, httpTypes: Bool = true, lifecycle: Bool = true, signals: Bool = false) -> [Target.Dependency] {
    var products = [("Hummingbird", "hummingbird"), ("NIOCore", "swift-nio")]
    if httpTypes { products.append(("HTTPTypes", "swift-http-types")) }
    if lifecycle { products.append(("ServiceLifecycle", "swift-service-lifecycle")) }
    if signals { products.append(("UnixSignals", "swift-service-lifecycle")) }
    return products.map { traitProduct($0.0, $0.1, when: traits) }
}
