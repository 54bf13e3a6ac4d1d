#if MCP // the MCP package trait
import Foundation
import MCP

/// The example's command line: the server URL, `--store PATH`, and
/// optionally `--tool NAME` with `--arguments JSON` (an object).
struct ExampleOptions {
    struct UsageError: Error {
        let message: String
    }

    static let usage = "usage: authflow-mcp-example SERVER_URL --store PATH [--tool NAME [--arguments JSON]]"

    var server: URL
    var store: URL
    var tool: String?
    var arguments: [String: Value]?

    init(_ words: some Sequence<String>) throws {
        var server: URL?
        var store: URL?
        var iterator = words.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let next = iterator.next() else { throw UsageError(message: "\(flag) needs a value") }
            return next
        }
        while let word = iterator.next() {
            switch word {
            case "--store": store = URL(fileURLWithPath: try value(word))
            case "--tool": tool = try value(word)
            case "--arguments":
                do {
                    arguments = try JSONDecoder().decode([String: Value].self, from: Data(try value(word).utf8))
                } catch is UsageError {
                    throw UsageError(message: "--arguments needs a value")
                } catch {
                    throw UsageError(message: "--arguments must be a JSON object")
                }
            case _ where word.hasPrefix("-"): throw UsageError(message: "unknown option \(word)")
            default:
                guard server == nil, let url = URL(string: word), url.scheme != nil else {
                    throw UsageError(message: "one server URL, such as https://mcp.example.com/mcp")
                }
                server = url
            }
        }
        guard let server else { throw UsageError(message: "the server URL is missing") }
        guard let store else { throw UsageError(message: "--store PATH is missing") }
        if arguments != nil, tool == nil { throw UsageError(message: "--arguments goes with --tool") }
        self.server = server
        self.store = store
    }
}
#endif
