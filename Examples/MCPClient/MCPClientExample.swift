#if MCP // the MCP package trait
import AuthFlow
import AuthFlowLoopback
import AuthFlowMCP
import Foundation
import MCP

/// `authflow-mcp-example SERVER_URL --store PATH [--tool NAME] [--arguments JSON]`
///
/// Connects to the MCP server at SERVER_URL with the swift-sdk's `Client`
/// and `HTTPClientTransport`, signed in by ``AuthSessionAuthorizer``: nothing
/// but the URL is configured. The browser opens through `$BROWSER` (else the
/// platform's opener) and the redirect lands on a loopback listener. The
/// session and the registration live in the file PATH, so a second run
/// signs in without the browser. Prints one JSON object on stdout: the
/// server's tools and, with `--tool`, the call's result.
///
/// In the enterprise mode (`--idp ISSUER --idp-client-id ID
/// [--idp-client-secret-env VARIABLE] --idp-store PATH --authorization-server
/// ISSUER --client-id ID --client-secret-env VARIABLE` instead of `--store`),
/// the browser opens only to sign in at the identity provider, once; the
/// MCP server's tokens come from identity assertions (``ExampleEnterprise``).
@main
struct MCPClientExample {
    static func main() async {
        do {
            let options = try ExampleOptions(CommandLine.arguments.dropFirst())
            let output = try await run(options)
            FileHandle.standardOutput.write(output + Data("\n".utf8))
        } catch let error as ExampleOptions.UsageError {
            FileHandle.standardError.write(Data("error: \(error.message)\n\(ExampleOptions.usage)\n".utf8))
            exit(2)
        } catch let error as AuthFlowError {
            // The developer line (category, reason, message): never a secret.
            FileHandle.standardError.write(Data("error: \(String(describing: error))\n".utf8))
            exit(1)
        } catch {
            FileHandle.standardError.write(Data("error: \(error.localizedDescription)\n".utf8))
            exit(1)
        }
    }

    static func run(_ options: ExampleOptions) async throws -> Data {
        let authorizer: AuthSessionAuthorizer
        switch options.mode {
        case .browser(let store):
            authorizer = AuthSessionAuthorizer(store: FileCredentialStore(url: store), identity: ExampleSignIn.identity) { client, scopes in
                try await ExampleSignIn.inBrowser(client, scopes)
            }
        case .enterprise(let enterprise):
            authorizer = try await ExampleEnterprise.authorizer(enterprise, server: options.server)
        }
        let transport = HTTPClientTransport(endpoint: options.server, streaming: false, authorizer: authorizer)
        let client = Client(name: "authflow-mcp-example", version: "1.0.0")
        do {
            _ = try await client.connect(transport: transport)
            let tools = try await client.listTools().tools.map(\.name)
            var report = ExampleReport(tools: tools)
            if let tool = options.tool {
                let result = try await client.callTool(name: tool, arguments: options.arguments)
                report.content = result.content
                report.isError = result.isError ?? false
            }
            await client.disconnect()
            return try report.json()
        } catch {
            await client.disconnect()
            // The transport passes on only the text of an authorization failure; the authorizer keeps the typed error.
            if let failure = authorizer.lastFailure { throw failure }
            throw error
        }
    }
}
#else
import Foundation

/// Without the `MCP` package trait the example is not built: this says how.
@main
struct MCPClientExample {
    static func main() {
        FileHandle.standardError.write(Data("authflow-mcp-example needs the MCP package trait: swift build --traits MCP\n".utf8))
        exit(2)
    }
}
#endif
