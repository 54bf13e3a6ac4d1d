#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// A token endpoint on 127.0.0.1 that answers every POST to `/token` with
/// one fixed JSON body and keeps what it received (the raw form body and the
/// `Authorization` header): for answers the embedded provider would never
/// give, and for the request exactly as a server sees it.
actor ScriptedTokenEndpoint {
    struct Received: Sendable {
        let body: String
        let authorization: String?
    }

    private(set) var received: [Received] = []
    private var server: LoopbackHTTPServer?
    nonisolated let port: Int

    private init(port: Int) { self.port = port }

    /// Starts the endpoint; it answers `answer` with `status`.
    static func start(answering answer: String, status: HTTPResponse.Status = .ok) async throws -> ScriptedTokenEndpoint {
        let box = LockedValue<ScriptedTokenEndpoint?>(nil)
        let router = Router()
        router.post("/token") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 65536)
            await box.withLock { $0 }?.record(Received(body: String(buffer: body), authorization: request.headers[.authorization]))
            return Response(
                status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        let server = try await LoopbackHTTPServer.start(router.buildResponder(), label: "ScriptedTokenEndpoint", logLevel: .critical)
        let endpoint = ScriptedTokenEndpoint(port: server.port)
        await endpoint.keep(server)
        box.withLock { $0 = endpoint }
        return endpoint
    }

    /// A client of this endpoint: `client-a` with `client_secret_basic`.
    nonisolated func client(logger: Logger? = nil) throws -> OAuthClient {
        let base = "http://127.0.0.1:\(port)"
        let metadata = ProviderMetadata(
            authorizationEndpoint: URL(string: base + "/authorize")!, tokenEndpoint: URL(string: base + "/token")!)
        if let logger {
            return try OAuthClient(
                metadata: metadata, clientID: "client-a", authentication: .clientSecretBasic(secret: "secret-a"), logger: logger)
        }
        return try OAuthClient(metadata: metadata, clientID: "client-a", authentication: .clientSecretBasic(secret: "secret-a"))
    }

    private func keep(_ server: LoopbackHTTPServer) { self.server = server }
    private func record(_ received: Received) { self.received.append(received) }

    func stop() async { await server?.stop() }

    /// Runs `body` with an endpoint answering `answer`, and stops it afterwards.
    static func with<T>(
        answering answer: String, status: HTTPResponse.Status = .ok, _ body: (ScriptedTokenEndpoint) async throws -> T
    ) async throws -> T {
        let endpoint = try await start(answering: answer, status: status)
        do {
            let value = try await body(endpoint)
            await endpoint.stop()
            return value
        } catch {
            await endpoint.stop()
            throw error
        }
    }
}
#endif
