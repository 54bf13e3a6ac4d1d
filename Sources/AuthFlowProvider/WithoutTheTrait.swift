#if !EmbeddedProvider
// Without the package trait that brings Hummingbird and SwiftNIO, this
// product's types are unavailable with a message that names the trait,
// rather than missing.

@available(
    *, unavailable,
    message:
        "AuthFlowProvider needs the package trait EmbeddedProvider: .package(url: \"https://github.com/authflow/authflow.git\", from: \"0.1.0\", traits: [\"EmbeddedProvider\"])"
)
public enum EmbeddedProvider {}

@available(*, unavailable, message: "AuthFlowProvider needs the package trait EmbeddedProvider (see EmbeddedProvider)")
public enum ProviderConfiguration {}
#endif
