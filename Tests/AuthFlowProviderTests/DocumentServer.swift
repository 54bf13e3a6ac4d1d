#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A server of client ID metadata documents on 127.0.0.1, honest and
/// hostile: `/client.json` names itself, `/huge.json` is 200 KB,
/// `/slow.json` answers after 5 s, `/other.json` names another client ID.
/// It counts the requests for each path.
actor DocumentServer {
    private(set) var port = 0
    private(set) var requests: [String: Int] = [:]
    private var server: LoopbackHTTPServer?

    static func start() async throws -> DocumentServer {
        let server = DocumentServer()
        try await server.run()
        return server
    }

    /// The URL of `path` on this server.
    nonisolated func url(_ path: String, port: Int) -> String { "http://127.0.0.1:\(port)\(path)" }

    func url(_ path: String) -> String { url(path, port: port) }

    private func document(_ path: String, clientID: String, padding: Int = 0) -> Data {
        var object: [String: Any] = [
            "client_id": clientID, "client_name": "Document client", "redirect_uris": ["http://127.0.0.1/callback"],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"], "token_endpoint_auth_method": "none",
        ]
        if padding > 0 { object["padding"] = String(repeating: "x", count: padding) }
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    private func count(_ path: String) { requests[path, default: 0] += 1 }

    private func run() async throws {
        let router = Router()
        for path in ["/client.json", "/huge.json", "/slow.json", "/other.json"] {
            router.get(RouterPath(path)) { [self] _, _ -> Response in
                await self.count(path)
                if path == "/slow.json" { try await Task.sleep(nanoseconds: 5_000_000_000) }
                let own = await self.url(path)
                let body = await self.document(
                    path, clientID: path == "/other.json" ? own.replacingOccurrences(of: "other", with: "client") : own,
                    padding: path == "/huge.json" ? 200_000 : 0)
                return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
        }
        let server = try await LoopbackHTTPServer.start(router.buildResponder(), label: "DocumentServer", logLevel: .critical)
        self.server = server
        port = server.port
    }

    /// Stops the server and waits until it has.
    func stop() async {
        await server?.stop()
    }
}
#endif
