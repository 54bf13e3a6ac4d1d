#if !Hummingbird
// Without the package trait that brings Hummingbird, this product's types
// are unavailable with a message that names the trait, rather than missing.

@available(
    *, unavailable,
    message:
        "AuthFlowHummingbird needs the package trait Hummingbird: .package(url: \"https://github.com/authflow/authflow.git\", from: \"0.1.0\", traits: [\"Hummingbird\"])"
)
public enum ProtectedResource {}

@available(*, unavailable, message: "AuthFlowHummingbird needs the package trait Hummingbird (see ProtectedResource)")
public enum ProtectedResourceOptions {}

@available(*, unavailable, message: "AuthFlowHummingbird needs the package trait Hummingbird (see ProtectedResource)")
public enum AccessTokenMiddleware<Context> {}

@available(*, unavailable, message: "AuthFlowHummingbird needs the package trait Hummingbird (see ProtectedResource)")
public enum ProtectedRequestContext {}
#endif
