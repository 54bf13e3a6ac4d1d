#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowHummingbird
import AuthFlowProvider
import AuthFlowTestSupport
import Foundation
import Hummingbird

/// A real Hummingbird API on 127.0.0.1 behind the middleware, and the
/// embedded provider that issues its tokens. The API starts first (its
/// port makes the resource identifier); the provider registers the API as
/// a confidential client (its introspection credentials, and a client whose
/// `aud` is the resource), then the middleware discovers the provider.
final class TestAPI: StoppableServer {
    let provider: EmbeddedProvider
    let resource: ProtectedResource
    let base: URL
    let logouts: LockedValue<[BackChannelLogoutRequest]>
    private let server: LoopbackHTTPServer

    static let apiSecret = "api-secret"
    var resourceURL: URL { resource.resource }
    var items: URL { base.appending(path: "api/items") }
    var transfers: URL { base.appending(path: "api/transfers") }
    /// What `/api/transfers` needs: multi-factor authentication within the last five minutes.
    static let transfers = try! AuthenticationRequirement(acrValues: ["urn:example:mfa", "urn:example:hardware"], maxAge: 300)

    private init(
        provider: EmbeddedProvider, resource: ProtectedResource, logouts: LockedValue<[BackChannelLogoutRequest]>,
        server: LoopbackHTTPServer
    ) {
        self.provider = provider
        self.resource = resource
        self.base = server.base
        self.logouts = logouts
        self.server = server
    }

    /// Runs `body` with a started API and provider, and stops both.
    static func with<T>(_ changes: Changes = Changes(), _ body: (TestAPI) async throws -> T) async throws -> T {
        try await start(changes).stopping(after: body)
    }

    /// What a test changes in the API's options.
    struct Changes {
        var requiresDPoP = false
        var dpopNonceLifetime: TimeInterval?
        var introspects = true
        var introspectionCacheMaximumAge: TimeInterval = 300
        var replayCache: (any ReplayCache)?
    }

    static func start(_ changes: Changes) async throws -> TestAPI {
        let box = LockedValue<ProtectedResource?>(nil)
        let logouts = LockedValue<[BackChannelLogoutRequest]>([])
        let router = Router(context: ProtectedRequestContext.self)
        router.group("api")
            .add(middleware: Deferred(box: box, scopes: ["read"]))
            .get("items") { _, context in Self.describe(context.accessToken) }
            .get(":id/me") { _, context in Self.describe(context.accessToken) }
        router.group("api")
            .add(middleware: Deferred(box: box, scopes: ["read", "write"]))
            .post("items") { _, context in Self.describe(context.accessToken) }
        // RFC 9470: a route that needs a strong and recent sign-in.
        router.group("api")
            .add(middleware: Deferred(box: box, scopes: ["read"], authentication: Self.transfers))
            .get("transfers") { _, context in Self.describe(context.accessToken) }
        let server = try await LoopbackHTTPServer.start(
            LateResponder(box: box, api: router.buildResponder(), logouts: logouts), label: "test-api")
        let resourceURL = server.base.appending(path: "api")
        var configuration = ProviderConfiguration.demo
        configuration.signingKeys = TestKeys.signingKeys
        // Opaque tokens, so the introspection path has some to check (the JWT
        // suites sign their own with the provider's keys).
        configuration.issuesOpaqueAccessTokens = true
        configuration.clients.append(
            ProviderClient(
                id: resourceURL.absoluteString, secret: apiSecret, authentication: .clientSecretBasic,
                grantTypes: [GrantType.clientCredentials], scopes: ["read", "write"]))
        let provider = try await EmbeddedProvider.start(configuration)
        var options = ProtectedResourceOptions()
        options.introspectionClient = (resourceURL.absoluteString, apiSecret)
        options.scopesSupported = ["read", "write"]
        options.requiresDPoP = changes.requiresDPoP
        options.dpopNonceLifetime = changes.dpopNonceLifetime
        if !changes.introspects { options.introspectionClient = nil }
        options.introspectionCacheMaximumAge = changes.introspectionCacheMaximumAge
        if let replayCache = changes.replayCache { options.replayCache = replayCache }
        let resource = try await ProtectedResource.discover(issuer: provider.issuer, resource: resourceURL, options: options)
        box.withLock { $0 = resource }
        return TestAPI(provider: provider, resource: resource, logouts: logouts, server: server)
    }

    func stop() async {
        await server.stop()
        await provider.stop()
    }

    /// What a route saw: the verified token, as JSON.
    static func describe(_ token: VerifiedAccessToken?) -> String {
        guard let token else { return "{}" }
        let members: [String: JSONMemberValue] = [
            "sub": token.subject.map(JSONMemberValue.string) ?? .null,
            "client_id": token.clientID.map(JSONMemberValue.string) ?? .null,
            "scopes": .array(token.scopes.sorted().map(JSONMemberValue.string)),
            "jkt": token.dpopThumbprint.map(JSONMemberValue.string) ?? .null,
            "source": .string(token.source == .jwt ? "jwt" : "introspection"),
            "email": token.claims.string("email").map(JSONMemberValue.string) ?? .null,
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(members)) ?? Data(), as: UTF8.self)
    }
}

enum TestAPIError: Error {
    case notStarted
}

/// The middleware, once the resource exists (it needs the API's port).
struct Deferred: RouterMiddleware {
    typealias Context = ProtectedRequestContext
    let box: LockedValue<ProtectedResource?>
    let scopes: [String]
    var authentication: AuthenticationRequirement? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let resource = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
        return try await AccessTokenMiddleware<Context>(resource, requiredScopes: scopes, requiredAuthentication: authentication)
            .handle(request, context: context, next: next)
    }
}

/// The API's routes, with the metadata and logout routes added once the resource exists.
struct LateResponder<API: HTTPResponder<ProtectedRequestContext>>: HTTPResponder {
    typealias Context = ProtectedRequestContext
    let box: LockedValue<ProtectedResource?>
    let api: API
    let logouts: LockedValue<[BackChannelLogoutRequest]>
    let late = LockedValue<RouterResponder<ProtectedRequestContext>?>(nil)

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.uri.path.hasPrefix("/.well-known/") || request.uri.path == "/backchannel-logout" else {
            return try await api.respond(to: request, context: context)
        }
        guard let resource = box.withLock({ $0 }) else { return Response(status: .serviceUnavailable) }
        let responder = late.withLock { existing in
            if let existing { return existing }
            let router = Router(context: ProtectedRequestContext.self)
            router.addProtectedResourceMetadata(resource)
            let refusedOnce = LockedValue<Set<String>>([])
            router.addBackChannelLogout("backchannel-logout", resource: resource, clientID: "authflow-demo-backend") { [logouts] logout in
                if logout.subject == "refuse-me" { throw TestAPIError.notStarted }
                // Fails the first time each token arrives, as a session store that is briefly down.
                if logout.subject == "refuse-once", refusedOnce.withLock({ $0.insert(logout.tokenID).inserted }) {
                    throw TestAPIError.notStarted
                }
                logouts.withLock { $0.append(logout) }
            }
            let built = router.buildResponder()
            existing = built
            return built
        }
        return try await responder.respond(to: request, context: context)
    }
}
#endif
