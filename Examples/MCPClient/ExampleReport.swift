#if MCP // the MCP package trait
import Foundation
import MCP

/// What the example prints: the server's tool names and the call's result.
struct ExampleReport: Encodable {
    var tools: [String]
    var content: [Tool.Content]?
    var isError: Bool?

    enum CodingKeys: String, CodingKey {
        case tools, content
        case isError = "is_error"
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
#endif
