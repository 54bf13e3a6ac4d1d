#if EmbeddedProvider // the EmbeddedProvider package trait
/// Sends each request to its endpoint. Independent of the HTTP server.
struct ProviderRouter: Sendable {
    let state: ProviderState

    func respond(_ request: ProviderRequest) async -> ProviderResponse {
        switch request.path {
        case EndpointPaths.openIDConfiguration, EndpointPaths.authorizationServerMetadata:
            guard request.method == "GET" else { return .methodNotAllowed("GET") }
            return await DiscoveryEndpoint(state: state).metadata()
        case EndpointPaths.jwks:
            guard request.method == "GET" else { return .methodNotAllowed("GET") }
            return await DiscoveryEndpoint(state: state).jwks()
        case EndpointPaths.authorize: return await AuthorizeEndpoint(state: state).handle(request)
        case EndpointPaths.token: return await TokenEndpointHandler(state: state).handle(request)
        case EndpointPaths.userinfo: return await UserInfoEndpoint(state: state).handle(request)
        case EndpointPaths.revoke: return await RevocationEndpoint(state: state).handle(request)
        case EndpointPaths.introspect: return await IntrospectionEndpoint(state: state).handle(request)
        case EndpointPaths.endSession: return await EndSessionEndpoint(state: state).handle(request)
        case EndpointPaths.deviceAuthorization: return await DeviceAuthorizationEndpoint(state: state).handle(request)
        case EndpointPaths.pushedAuthorization: return await PushedAuthorizationEndpoint(state: state).handle(request)
        case EndpointPaths.device: return await DeviceVerificationPage(state: state).handle(request)
        case EndpointPaths.registration: return await RegistrationEndpoint(state: state).handle(request)
        default:
            for resource in state.configuration.protectedResources {
                if request.path == resource.metadataPath {
                    return await ProtectedResourceEndpoint(state: state, resource: resource).metadata(request)
                }
                if resource.serves(request.path) {
                    return await ProtectedResourceEndpoint(state: state, resource: resource).handle(request)
                }
            }
            return .notFound
        }
    }
}
#endif
