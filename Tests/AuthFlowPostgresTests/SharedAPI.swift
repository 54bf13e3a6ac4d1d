#if PostgreSQL && Hummingbird && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowHummingbird
import AuthFlowPostgres
import AuthFlowProvider
import AuthFlowTestSupport
import Crypto
import Foundation
import Hummingbird
import PostgresNIO

/// An API that runs as several instances behind a load balancer, wired as
/// a user would: each instance has its own PostgreSQL pool, its middleware
/// keeps DPoP proof identifiers in a `PostgresReplayCache`, and its
/// back-channel logout endpoint ends the sessions of a `PostgresSessionTable`.
/// The instances share one public resource identifier (the load balancer's
/// URL); each listens on its own port on 127.0.0.1.
final class SharedAPIInstance: StoppableServer {
    /// The resource identifier every instance serves (the `aud` and the origin of `htu`).
    static let resourceURL = URL(string: "https://orders.example/api")!
    /// The client ID logout tokens are addressed to.
    static let backendClientID = "orders-backend"

    let table: PostgresSessionTable
    let resource: ProtectedResource
    let base: URL
    private let server: LoopbackHTTPServer

    private init(table: PostgresSessionTable, resource: ProtectedResource, server: LoopbackHTTPServer) {
        self.table = table
        self.resource = resource
        self.base = server.base
        self.server = server
    }

    /// `GET /api/items` on this instance (the proof names the public URL).
    var items: URL { base.appending(path: "api/items") }
    /// The public URL of the items, as a client sees it.
    static var publicItems: URL { resourceURL.appending(path: "items") }

    /// Runs `body` with an instance on `client`'s pool, and stops it.
    static func with<T>(
        issuer: Issuer, client: PostgresClient, tableName: String, _ body: (SharedAPIInstance) async throws -> T
    ) async throws -> T {
        try await start(issuer: issuer, client: client, tableName: tableName).stopping(after: body)
    }

    private static func start(issuer: Issuer, client: PostgresClient, tableName: String) async throws -> SharedAPIInstance {
        // What an app writes: one table, one replay cache per use, the middleware and the logout endpoint.
        let table = try PostgresSessionTable(client: client, keys: TestDatabase.keys, name: tableName)
        var options = ProtectedResourceOptions()
        options.replayCache = PostgresReplayCache(table: table, scope: "dpop")
        let resource = try await ProtectedResource.discover(issuer: issuer, resource: resourceURL, options: options)
        let router = Router(context: ProtectedRequestContext.self)
        router.addBackChannelLogout(
            "backchannel-logout", resource: resource, clientID: backendClientID,
            replayCache: PostgresReplayCache(table: table, scope: "backchannel-logout")
        ) { logout in
            try await table.endSessions(issuer: logout.issuer, subject: logout.subject, sid: logout.sessionID)
        }
        router.group("api")
            .add(middleware: AccessTokenMiddleware(resource, requiredScopes: ["read"]))
            .get("items") { _, context in context.accessToken?.subject ?? "" }
        let server = try await LoopbackHTTPServer.start(router.buildResponder(), label: "shared-api")
        return SharedAPIInstance(table: table, resource: resource, server: server)
    }

    func stop() async {
        await server.stop()
    }

    func get(authorization: String, dpop: [String]) async throws -> HTTPTransportResponse {
        var headers: [(name: String, value: String)] = [("Authorization", authorization)]
        for proof in dpop { headers.append(("DPoP", proof)) }
        return try await URLSessionTransport().send(HTTPTransportRequest(method: "GET", url: items, headers: headers, timeout: 10))
    }

    /// Posts `token` to the back-channel logout endpoint, as the provider does.
    func postLogout(_ token: String) async throws -> HTTPTransportResponse {
        try await URLSessionTransport().send(
            HTTPTransportRequest(
                method: "POST", url: base.appending(path: "backchannel-logout"),
                headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Data(FormEncoding.encode([("logout_token", token)]).utf8), timeout: 10))
    }

    /// The `error_description` of a JSON error answer.
    static func errorDescription(_ response: HTTPTransportResponse) -> String? {
        JSONMemberValue.object(from: response.body)?["error_description"]?.stringValue
    }
}

/// The embedded provider with a signing key the tests also hold, so they
/// can sign access and logout tokens its JWK Set verifies.
enum SharedAPIKeys {
    static let provider = P256.Signing.PrivateKey()
    /// A key the provider does not publish, under the provider's key ID.
    static let stranger = P256.Signing.PrivateKey()
    static let keyID = "shared-api-es256"

    static var configuration: ProviderConfiguration {
        var configuration = ProviderConfiguration.demo
        configuration.signingKeys = [try! SigningKey(pem: provider.pemRepresentation, algorithm: .es256, keyID: keyID)]
        return configuration
    }

    /// A compact JWS (ES256) of `claims` with `typ`, signed by the provider's key or `key`.
    static func sign(_ claims: [String: JSONMemberValue], typ: String?, key: P256.Signing.PrivateKey = provider) throws -> String {
        var header: [String: JSONMemberValue] = ["alg": .string("ES256"), "kid": .string(keyID)]
        if let typ { header["typ"] = .string(typ) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let input = Base64URL.encode(Array(try encoder.encode(header))) + "." + Base64URL.encode(Array(try encoder.encode(claims)))
        return input + "." + Base64URL.encode(Array(try key.signature(for: Data(input.utf8)).rawRepresentation))
    }

    /// A JWT access token for the shared API bound to `key`.
    static func accessToken(issuer: Issuer, boundTo key: DPoPKey) throws -> String {
        let now = Date().timeIntervalSince1970.rounded(.down)
        return try sign(
            [
                "iss": .string(issuer.identifier), "aud": .string(SharedAPIInstance.resourceURL.absoluteString),
                "sub": .string("demo"), "client_id": .string("authflow-demo"), "scope": .string("read"), "iat": .number(now),
                "exp": .number(now + 300), "jti": .string(UUID().uuidString), "cnf": .object(["jkt": .string(key.thumbprint)]),
            ], typ: "at+jwt")
    }

    /// The claims of a good logout token for `subject` at `issuer`, with `changes`.
    static func logoutClaims(issuer: Issuer, subject: String, _ changes: [String: JSONMemberValue?] = [:]) -> [String: JSONMemberValue] {
        let now = Date().timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONMemberValue] = [
            "iss": .string(issuer.identifier), "aud": .string(SharedAPIInstance.backendClientID), "sub": .string(subject),
            "iat": .number(now), "exp": .number(now + 120), "jti": .string(UUID().uuidString),
            "events": .object(["http://schemas.openid.net/event/backchannel-logout": .object([:])]),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }
}
#endif
