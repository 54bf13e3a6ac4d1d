#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A hostile authorization server on 127.0.0.1 for attack tests: its
/// discovery document names itself as the issuer and PAR endpoint and an
/// honest provider's token endpoint as its own; it keeps every form posted
/// to `/par` (where a client's assertion lands) and answers with a
/// `request_uri`.
actor HostileServer {
    private(set) var port = 0
    private(set) var capturedForms: [[String: String]] = []
    private var server: LoopbackHTTPServer?

    /// Starts the server; its metadata names `honestTokenEndpoint`.
    static func start(honestTokenEndpoint: URL) async throws -> HostileServer {
        let server = HostileServer()
        try await server.run(honestTokenEndpoint: honestTokenEndpoint)
        return server
    }

    var issuer: String { "http://127.0.0.1:\(port)" }

    private func run(honestTokenEndpoint: URL) async throws {
        let router = Router()
        router.get("/.well-known/openid-configuration") { [self] _, _ -> Response in
            let issuer = await self.issuer
            let metadata: [String: Any] = [
                "issuer": issuer, "authorization_endpoint": issuer + "/authorize",
                "token_endpoint": honestTokenEndpoint.absoluteString, "jwks_uri": issuer + "/jwks",
                "pushed_authorization_request_endpoint": issuer + "/par",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
            ]
            let body = try JSONSerialization.data(withJSONObject: metadata)
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.post("/par") { [self] request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 65536)
            let pairs = String(buffer: body).split(separator: "&").map { pair -> (String, String) in
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
                }
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
            await self.capture(Dictionary(pairs, uniquingKeysWith: { first, _ in first }))
            let answer = Data(#"{"request_uri":"urn:ietf:params:oauth:request_uri:captured","expires_in":60}"#.utf8)
            return Response(
                status: .created, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: answer)))
        }
        let server = try await LoopbackHTTPServer.start(router.buildResponder(), label: "HostileServer", logLevel: .critical)
        self.server = server
        port = server.port
    }

    private func capture(_ form: [String: String]) { capturedForms.append(form) }

    /// Stops the server and waits until it has.
    func stop() async {
        await server?.stop()
    }
}
#endif
