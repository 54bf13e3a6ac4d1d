#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlowHummingbird
import HTTPTypes
import Hummingbird

/// The provider's endpoints on a Hummingbird router: each path with the
/// methods it answers. Another method on one of these paths is 405 with
/// `Allow`; any other path is 404. The demo protected resources are routes
/// behind AuthFlowHummingbird's ``AccessTokenMiddleware`` (``DemoAPI``).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
struct ProviderRoutes: Sendable {
    let state: ProviderState

    /// The router with every endpoint, the demo protected resources and the fallback answers.
    func router() -> Router<ProtectedRequestContext> {
        let router = Router(context: ProtectedRequestContext.self)
        var allowed: [String: [HTTPRequest.Method]] = [:]
        func route(_ path: String, _ methods: [HTTPRequest.Method], _ endpoint: @escaping ProviderEndpoint) {
            allowed[path, default: []] += methods
            for method in methods {
                router.on(RouterPath(path), method: method) { request, _ in
                    // The router ignores empty segments (`//token`, `/token/`); the provider does not.
                    guard request.uri.path == path else { return ProviderResponse.notFound.hummingbird }
                    return try await HTTPServer.respond(to: request, with: endpoint)
                }
            }
        }
        let state = state
        route(EndpointPaths.openIDConfiguration, [.get]) { _ in await DiscoveryEndpoint(state: state).metadata() }
        route(EndpointPaths.authorizationServerMetadata, [.get]) { _ in await DiscoveryEndpoint(state: state).metadata() }
        route(EndpointPaths.jwks, [.get]) { _ in await DiscoveryEndpoint(state: state).jwks() }
        route(WebFingerEndpoint.path, [.get]) { await WebFingerEndpoint(state: state).handle($0) }
        route(EndpointPaths.authorize, [.get, .post]) { await AuthorizeEndpoint(state: state).handle($0) }
        route(EndpointPaths.token, [.post]) { await TokenEndpointHandler(state: state).handle($0) }
        route(EndpointPaths.userinfo, [.get, .post]) { await UserInfoEndpoint(state: state).handle($0) }
        route(EndpointPaths.revoke, [.post]) { await RevocationEndpoint(state: state).handle($0) }
        route(EndpointPaths.introspect, [.post]) { await IntrospectionEndpoint(state: state).handle($0) }
        route(EndpointPaths.endSession, [.get, .post]) { await EndSessionEndpoint(state: state).handle($0) }
        route(EndpointPaths.deviceAuthorization, [.post]) { await DeviceAuthorizationEndpoint(state: state).handle($0) }
        route(EndpointPaths.pushedAuthorization, [.post]) { await PushedAuthorizationEndpoint(state: state).handle($0) }
        route(EndpointPaths.device, [.get, .post]) { await DeviceVerificationPage(state: state).handle($0) }
        route(EndpointPaths.backchannelAuthentication, [.post]) { await BackchannelAuthenticationEndpoint(state: state).handle($0) }
        route(EndpointPaths.backchannelApproval, [.get, .post]) { await BackchannelApprovalPage(state: state).handle($0) }
        route(EndpointPaths.registration, [.post]) { await RegistrationEndpoint(state: state).handle($0) }
        for resource in state.configuration.protectedResources {
            let api = DemoAPI(state: state, resource: resource)
            route(resource.metadataPath, [.get]) { _ in await api.metadata() }
            // The resource and every path below it, whatever the method (a DPoP proof names the method used).
            let protected = router.group(RouterPath(resource.path)).add(middleware: DemoAPIMiddleware(api: api))
            for path in ["", "**"] {
                for method in ProviderRoutes.resourceMethods {
                    protected.on(RouterPath(path), method: method) { request, context in
                        guard resource.serves(request.uri.path) else { return ProviderResponse.notFound.hummingbird }
                        return api.answer(context.accessToken, issuer: await state.issuer).hummingbird
                    }
                }
            }
        }
        // Added last, it wraps only what no route answers.
        router.add(middleware: Fallback(allowed: allowed.mapValues { $0.map(\.rawValue).joined(separator: ", ") }))
        return router
    }

    /// The methods the demo protected resources answer.
    static let resourceMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    /// What no route answers: 405 with `Allow` on a known path, else 404.
    struct Fallback: RouterMiddleware {
        typealias Context = ProtectedRequestContext
        /// `Allow` by path.
        let allowed: [String: String]

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound {
                guard let methods = allowed[request.uri.path] else { return ProviderResponse.notFound.hummingbird }
                return ProviderResponse.methodNotAllowed(methods).hummingbird
            }
        }
    }
}

/// One endpoint: a request in, a response out, independent of the HTTP server.
typealias ProviderEndpoint = @Sendable (ProviderRequest) async -> ProviderResponse
#endif
