#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowHummingbird
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Hummingbird
import NIOCore

/// A demo protected resource (``ProviderProtectedResource``) as any API
/// behind AuthFlowHummingbird's middleware: a `ProtectedResource` that
/// discovered the provider, and ``AccessTokenMiddleware`` in front of its
/// routes. Its resource identifier holds the provider's port, known once the
/// provider listens, so it discovers the provider on first use.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
actor DemoAPI {
    let state: ProviderState
    nonisolated let resource: ProviderProtectedResource
    private var discovered: ProtectedResource?

    init(state: ProviderState, resource: ProviderProtectedResource) {
        self.state = state
        self.resource = resource
    }

    /// The middleware's view of the API, discovered from the provider on first use.
    func protectedResource() async throws -> ProtectedResource {
        if let discovered { return discovered }
        let issuer = await state.issuer
        guard let resourceURL = URL(string: issuer + resource.path) else {
            throw ProviderConfigurationError("the demo API \(resource.path) has no resource identifier")
        }
        var options = ProtectedResourceOptions()
        // What the provider signs access tokens with, and what its DPoP check accepts and its metadata lists.
        options.tokenAlgorithms = Set(SigningAlgorithm.allCases.map(\.rawValue))
        options.dpopAlgorithms = ClientAssertionCheck.asymmetric
        options.dpopNonceLifetime = state.configuration.requiresDPoPNonce ? DemoAPI.nonceLifetime : nil
        options.scopesSupported = resource.scopesSupported
        options.resourceName = "AuthFlow demo API"
        options.realm = "authflow-demo-api"
        let made = try await ProtectedResource.discover(
            issuer: Issuer(issuer), resource: resourceURL, options: options, logger: state.logger)
        // Two first requests may both have discovered it: the first one kept wins.
        if let discovered { return discovered }
        discovered = made
        return made
    }

    /// Its protected resource metadata (RFC 9728 §3), as the middleware writes it.
    func metadata() async -> ProviderResponse {
        guard let resource = try? await protectedResource() else { return DemoAPI.unavailable }
        return ProviderResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=3600")],
            body: Array(resource.metadataDocument))
    }

    /// The answer while the provider cannot be discovered (it always can, on its own listener).
    static let unavailable = ProviderResponse.json(
        .object(["error": .string("temporarily_unavailable"), "error_description": .string("the demo API could not discover its provider")]
        ),
        status: 503, noStore: true)

    /// How long a DPoP nonce of the API lasts when the provider requires nonces.
    static let nonceLifetime: TimeInterval = 300

    /// The answer of a request the middleware let through: who called, with what.
    nonisolated func answer(_ token: VerifiedAccessToken?, issuer: String) -> ProviderResponse {
        var body: [String: JSONMemberValue] = [
            "resource": .string(issuer + resource.path),
            "scope": .string(token?.claims.string("scope") ?? ""),
            "message": .string("Hello from the AuthFlow demo API"),
        ]
        if let clientID = token?.clientID { body["client_id"] = .string(clientID) }
        if let subject = token?.subject { body["sub"] = .string(subject) }
        return .json(.object(body), noStore: true)
    }
}

/// ``AccessTokenMiddleware`` for a ``DemoAPI``, made once its resource is discovered.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
struct DemoAPIMiddleware: RouterMiddleware {
    typealias Context = ProtectedRequestContext
    let api: DemoAPI

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let resource: ProtectedResource
        do {
            resource = try await api.protectedResource()
        } catch {
            return DemoAPI.unavailable.hummingbird
        }
        let demanded = api.resource
        var authentication: AuthenticationRequirement?
        if !demanded.requiredACRValues.isEmpty || demanded.maxAuthenticationAge != nil {
            // Checked when the configuration was read (ProviderConfigurationFile); a bad one set in code is refused here.
            guard
                let requirement = try? AuthenticationRequirement(
                    acrValues: demanded.requiredACRValues, maxAge: demanded.maxAuthenticationAge)
            else { return DemoAPI.unavailable.hummingbird }
            authentication = requirement
        }
        return try await AccessTokenMiddleware<Context>(
            resource, requiredScopes: api.resource.requiredScopes, requiredAuthentication: authentication
        )
        .handle(request, context: context, next: next)
    }
}
#endif
