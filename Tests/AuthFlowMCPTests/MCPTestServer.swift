#if MCP && EmbeddedProvider && Hummingbird
import AuthFlow
import AuthFlowHummingbird
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A small MCP server (streamable HTTP, JSON answers) on 127.0.0.1 whose
/// endpoint `/mcp` is a protected resource: access tokens of the embedded
/// provider, checked by AuthFlowHummingbird (signature, `aud` = the
/// endpoint, scope `mcp:tools`), its RFC 9728 metadata served beside it.
///
/// Tools: `echo` (the `text` argument back); `admin_echo` (needs `mcp:admin`
/// too: 403 `insufficient_scope` without it); `stubborn_echo` (always 403
/// `insufficient_scope` naming `mcp:admin`, even when granted: the endless
/// step-up). Every request's `Authorization` value is recorded.
final class MCPTestServer: StoppableServer {
    let provider: EmbeddedProvider
    let endpoint: URL
    /// The `Authorization` values the server received, in order (nil: none).
    let seen: LockedValue<[String?]>
    /// Access tokens the server refuses as `invalid_token` (as if revoked);
    /// `*` refuses every token.
    let refused: LockedValue<Set<String>>
    private let server: LoopbackHTTPServer

    static let scopes = ["mcp:tools", "mcp:admin"]

    private init(
        provider: EmbeddedProvider, seen: LockedValue<[String?]>, refused: LockedValue<Set<String>>, server: LoopbackHTTPServer
    ) {
        self.provider = provider
        self.endpoint = server.base.appending(path: "mcp")
        self.seen = seen
        self.refused = refused
        self.server = server
    }

    /// Runs `body` with a started provider and server, and stops both.
    static func with<T>(_ body: (MCPTestServer) async throws -> T) async throws -> T {
        try await start().stopping(after: body)
    }

    /// The server, with its authorization server configured by `configure` over the demo's.
    static func start(configure: (inout ProviderConfiguration) -> Void = { _ in }) async throws -> MCPTestServer {
        var configuration = ProviderConfiguration.demo
        // The scopes the provider grants any client; its own demo API is not used.
        configuration.protectedResources = [ProviderProtectedResource(path: "/api", requiredScopes: ["mcp:tools"], scopesSupported: scopes)]
        configure(&configuration)
        let provider = try await EmbeddedProvider.start(configuration)
        let box = LockedValue<ProtectedResource?>(nil)
        let seen = LockedValue<[String?]>([])
        let refused = LockedValue<Set<String>>([])
        let server: LoopbackHTTPServer
        do {
            server = try await LoopbackHTTPServer.start(MCPResponder(box: box, seen: seen, refused: refused), label: "mcp-test-server")
        } catch {
            await provider.stop()
            throw error
        }
        let endpoint = server.base.appending(path: "mcp")
        var options = ProtectedResourceOptions()
        // The first sign-in asks for these; `mcp:admin` comes by step-up.
        options.scopesSupported = ["mcp:tools"]
        let resource = try await ProtectedResource.discover(issuer: provider.issuer, resource: endpoint, options: options)
        box.withLock { $0 = resource }
        return MCPTestServer(provider: provider, seen: seen, refused: refused, server: server)
    }

    func stop() async {
        await server.stop()
        await provider.stop()
    }
}

/// The server's routes: the metadata, and JSON-RPC at `/mcp` behind the token check.
struct MCPResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let box: LockedValue<ProtectedResource?>
    let seen: LockedValue<[String?]>
    let refused: LockedValue<Set<String>>

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let resource = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
        if request.method == .get, request.uri.path == resource.metadataPath {
            return Self.json(resource.metadataDocument)
        }
        guard request.uri.path == "/mcp" else { return Response(status: .notFound) }
        guard request.method == .post else { return Response(status: .methodNotAllowed) }
        let authorization = request.headers[.authorization]
        seen.withLock { $0.append(authorization) }
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let message = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
            let method = message["method"] as? String
        else { return Response(status: .badRequest) }
        let metadata = URL(string: resource.metadataPath, relativeTo: resource.resource)?.absoluteString ?? ""
        if let token = authorization?.split(separator: " ").last.map(String.init),
            refused.withLock({ $0.contains(token) || $0.contains("*") })
        {
            return Self.refusal(401, [#"Bearer error="invalid_token", resource_metadata="\#(metadata)""#])
        }
        let params = message["params"] as? [String: Any] ?? [:]
        let tool = method == "tools/call" ? params["name"] as? String : nil
        let required = tool == "admin_echo" ? ["mcp:tools", "mcp:admin"] : ["mcp:tools"]
        do throws(AccessTokenRefusal) {
            _ = try await resource.verify(authorization: authorization, method: "POST", path: "/mcp", requiredScopes: required)
        } catch {
            return Self.refusal(error.status, error.challenges)
        }
        if tool == "stubborn_echo" {
            return Self.refusal(
                403, [#"Bearer error="insufficient_scope", scope="mcp:tools mcp:admin", resource_metadata="\#(metadata)""#])
        }
        guard let id = message["id"] else { return Response(status: .accepted) } // a notification
        let result: Any
        switch method {
        case "initialize":
            result =
                [
                    "protocolVersion": params["protocolVersion"] as? String ?? "2025-06-18",
                    "capabilities": ["tools": [:] as [String: Any]],
                    "serverInfo": ["name": "authflow-mcp-test", "version": "1.0.0"],
                ] as [String: Any]
        case "tools/list":
            result = [
                "tools": ["echo", "admin_echo", "stubborn_echo"].map { ["name": $0, "inputSchema": ["type": "object"]] as [String: Any] }
            ]
        case "tools/call":
            let text = (params["arguments"] as? [String: Any])?["text"] as? String ?? ""
            result = ["content": [["type": "text", "text": "\(tool ?? ""): \(text)"]], "isError": false] as [String: Any]
        default:
            return Self.json(
                try JSONSerialization.data(
                    withJSONObject: [
                        "jsonrpc": "2.0", "id": id, "error": ["code": -32601, "message": "no method \(method)"] as [String: Any],
                    ] as [String: Any]))
        }
        return Self.json(try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "result": result] as [String: Any]))
    }

    static func json(_ data: Data) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func refusal(_ status: Int, _ challenges: [String]) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        for challenge in challenges { headers.append(HTTPField(name: .wwwAuthenticate, value: challenge)) }
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: Data("{}".utf8))))
    }
}
#endif
