#if MCP // the MCP package trait
import Foundation
import MCP

/// The example's command line: the server URL, then either `--store PATH`
/// (the browser sign-in to the MCP server) or the options of the enterprise
/// mode (``EnterpriseOptions``), and optionally `--tool NAME` with
/// `--arguments JSON` (an object).
struct ExampleOptions {
    struct UsageError: Error {
        let message: String
    }

    /// How the example gets the MCP server's access tokens.
    enum Mode {
        /// Signed in to the MCP server in the browser; the session is kept in this file.
        case browser(store: URL)
        /// From identity assertions of the user's session at the company's identity provider.
        case enterprise(EnterpriseOptions)
    }

    static let usage = """
        usage: authflow-mcp-example SERVER_URL --store PATH [--tool NAME [--arguments JSON]]
               authflow-mcp-example SERVER_URL --idp ISSUER --idp-client-id ID [--idp-client-secret-env VARIABLE] --idp-store PATH
                   --authorization-server ISSUER --client-id ID --client-secret-env VARIABLE [--tool NAME [--arguments JSON]]
        """

    var server: URL
    var mode: Mode
    var tool: String?
    var arguments: [String: Value]?

    /// Reads `words` (the arguments after the program's name); the
    /// enterprise mode's secrets are read from `environment`.
    init(_ words: some Sequence<String>, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var server: URL?
        var store: URL?
        var enterprise = EnterpriseOptions.Builder()
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
            case _ where EnterpriseOptions.Builder.flags.contains(word): try enterprise.set(word, try value(word))
            case _ where word.hasPrefix("-"): throw UsageError(message: "unknown option \(word)")
            default:
                guard server == nil, let url = URL(string: word), url.scheme != nil else {
                    throw UsageError(message: "one server URL, such as https://mcp.example.com/mcp")
                }
                server = url
            }
        }
        guard let server else { throw UsageError(message: "the server URL is missing") }
        if arguments != nil, tool == nil { throw UsageError(message: "--arguments goes with --tool") }
        if let options = try enterprise.build(environment: environment) {
            guard store == nil else {
                throw UsageError(message: "--store goes with the browser sign-in; the enterprise mode keeps its session in --idp-store")
            }
            mode = .enterprise(options)
        } else {
            guard let store else { throw UsageError(message: "--store PATH is missing") }
            mode = .browser(store: store)
        }
        self.server = server
    }
}
#endif
