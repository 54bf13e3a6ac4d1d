#if EmbeddedProvider || Hummingbird // the package traits that bring Hummingbird
import AuthFlow
package import Foundation
package import HTTPTypes
package import Hummingbird
import Logging
import NIOCore

/// E: a resource and its authorization server on 127.0.0.1 that send the
/// user to the honest server H. Its registration answers with H's client
/// ID; its authorization endpoint (when it has one) rewrites the redirect
/// URI and forwards to H's; its token endpoint records what it receives.
package actor HostileAuthorizationServer {
    /// What E's authorization endpoint puts in place of the client's redirect URI.
    package enum Rewrite: Sendable, CustomStringConvertible {
        /// The plain loopback URI H's client has (`http://127.0.0.1:PORT/callback`).
        case plain
        /// The redirect URI AuthFlow registers with H for H.
        case honestIssuerSpecific

        package var description: String { self == .plain ? "plain" : "H's issuer-specific URI" }
    }

    package private(set) var tokenRequests: [[String: String]] = []
    package private(set) var registrations = 0
    package private(set) var authorizationRequests = 0
    private var server: LoopbackHTTPServer?
    package nonisolated let port: Int

    package nonisolated var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private init(port: Int) { self.port = port }

    package static func start(honest: URL, clientID: String, rewrite: Rewrite?) async throws -> HostileAuthorizationServer {
        let box = LockedValue<HostileAuthorizationServer?>(nil)
        let router = Router()
        router.get("/.well-known/oauth-protected-resource/api") { _, _ -> Response in
            let base = box.withLock { $0 }.map { $0.base.absoluteString } ?? ""
            return Self.json(#"{"resource":"\#(base)/api","authorization_servers":["\#(base)"]}"#)
        }
        let metadata = { @Sendable () -> Response in
            let base = box.withLock { $0 }.map { $0.base.absoluteString } ?? ""
            let authorize = rewrite == nil ? honest.absoluteString + "/authorize" : base + "/authorize"
            return Self.json(
                #"{"issuer":"\#(base)","authorization_endpoint":"\#(authorize)","token_endpoint":"\#(base)/token","#
                    + #""registration_endpoint":"\#(base)/register","code_challenge_methods_supported":["S256"],"#
                    + #""response_types_supported":["code"]}"#)
        }
        router.get("/.well-known/oauth-authorization-server") { _, _ in metadata() }
        router.get("/.well-known/openid-configuration") { _, _ in metadata() }
        router.post("/register") { _, _ -> Response in
            await box.withLock { $0 }?.count(registration: true)
            return Self.json(#"{"client_id":"\#(clientID)"}"#, status: .created)
        }
        router.get("/authorize") { request, _ -> Response in
            await box.withLock { $0 }?.count(registration: false)
            var components = URLComponents(string: "http://x" + request.uri.description)!
            components.queryItems = components.queryItems?.map { item in
                guard item.name == "redirect_uri", let value = item.value, let sent = URLComponents(string: value) else { return item }
                // The loopback URI H's client has, on the listener's port.
                let plain = "http://127.0.0.1:\(sent.port ?? 0)/callback"
                let replaced =
                    rewrite == .honestIssuerSpecific
                    ? IssuerSpecificRedirect.uri(URL(string: plain)!, issuer: try! Issuer(honest)).absoluteString : plain
                return URLQueryItem(name: item.name, value: replaced)
            }
            let location = honest.absoluteString + "/authorize?" + (components.percentEncodedQuery ?? "")
            return Response(status: .found, headers: [.location: location])
        }
        router.post("/token") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 65536)
            let form = Dictionary(FormEncoding.decode(String(buffer: body)) ?? [], uniquingKeysWith: { first, _ in first })
            await box.withLock { $0 }?.record(form)
            return Self.json(#"{"error":"invalid_grant"}"#, status: .badRequest)
        }
        let server = try await LoopbackHTTPServer.start(router.buildResponder(), label: "HostileAuthorizationServer", logLevel: .critical)
        let hostile = HostileAuthorizationServer(port: server.port)
        await hostile.keep(server)
        box.withLock { $0 = hostile }
        return hostile
    }

    private func keep(_ server: LoopbackHTTPServer) { self.server = server }
    func record(_ form: [String: String]) { tokenRequests.append(form) }
    func count(registration: Bool) {
        if registration { registrations += 1 } else { authorizationRequests += 1 }
    }

    package func stop() async { await server?.stop() }

    package static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
#endif
