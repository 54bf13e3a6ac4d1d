#if CLI
import Foundation
import Testing
@testable import authflow

@Suite("provider serve --resource")
struct ProviderServeOptionTests {
    @Test("a path is taken as given; a URL must be on the provider's own listener, with --port")
    func resourcePath() throws {
        #expect(try ProviderCommand.Serve.resourcePath("/api", port: 0) == "/api")
        #expect(try ProviderCommand.Serve.resourcePath("http://127.0.0.1:9000/mcp", port: 9000) == "/mcp")
        for (value, port) in [
            ("http://127.0.0.1:9000/mcp", 0), ("http://127.0.0.1:9001/mcp", 9000), ("https://127.0.0.1:9000/mcp", 9000),
            ("http://localhost:9000/mcp", 9000), ("http://127.0.0.1:9000/mcp?x=1", 9000), ("api", 9000),
        ] {
            #expect(throws: (any Error).self, "\(value) with --port \(port)") { try ProviderCommand.Serve.resourcePath(value, port: port) }
        }
    }
}
#endif
