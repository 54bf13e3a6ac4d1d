// swift-tools-version: 6.1
// The example app as an app package: open this folder in Xcode (File > Open…)
// and run the AuthFlowExample app on an iPhone or the Simulator; no project
// file is needed. On other systems (Linux, a plain `swift package`), the app
// product is left out and the manifest describes the target alone, which is
// how `scripts/typecheck-apple` reads its Swift settings.
import PackageDescription

#if canImport(AppleProductTypes)
import AppleProductTypes
#endif

let package = Package(
    name: "AuthFlowExample",
    platforms: [.iOS("17.0")],
    products: appProducts,
    dependencies: [
        .package(name: "AuthFlow", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "AuthFlowExample",
            dependencies: [
                .product(name: "AuthFlow", package: "AuthFlow"),
                .product(name: "AuthFlowApple", package: "AuthFlow"),
            ],
            path: ".",
            exclude: ["README.md"],
            // The package's own settings, so the example is built as strictly as the library.
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

#if canImport(AppleProductTypes)
var appProducts: [Product] {
    [
        .iOSApplication(
            name: "AuthFlowExample",
            targets: ["AuthFlowExample"],
            bundleIdentifier: "com.example.authflow",
            displayVersion: "1.0",
            bundleVersion: "1",
            appIcon: .placeholder(icon: .lock),
            accentColor: .presetColor(.blue),
            supportedDeviceFamilies: [.phone, .pad],
            supportedInterfaceOrientations: [.portrait, .landscapeLeft, .landscapeRight]
        )
    ]
}
#else
var appProducts: [Product] { [] }
#endif
