#if !(MCP && EmbeddedProvider && Hummingbird)
import Testing

/// Without the `MCP` trait (and `CLI`, for the provider and the middleware
/// the test server uses) the bridge's suites are not built: this says so.
@Suite("AuthFlowMCP (needs the MCP and CLI traits)")
struct MCPSuitesNeedTheTraits {
    @Test(.disabled("the MCP bridge's suites build only with the traits: swift test --traits CLI,MCP"))
    func mcpSuites() {}
}
#endif
