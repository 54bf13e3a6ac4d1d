#if !MCP
// Without the package trait that brings the MCP swift-sdk, this product's
// type is unavailable with a message that names the trait, rather than missing.

@available(
    *, unavailable,
    message:
        "AuthFlowMCP needs the package trait MCP: .package(url: \"https://github.com/authflow/authflow.git\", from: \"0.1.0\", traits: [\"MCP\"])"
)
public enum AuthSessionAuthorizer {}
#endif
