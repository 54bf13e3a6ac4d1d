#if Hummingbird // the Hummingbird package trait
public import Hummingbird
import HTTPTypes
import NIOCore

/// Protects the routes behind it: each request needs a valid access token
/// for the ``ProtectedResource`` (and a DPoP proof when the token is
/// DPoP-bound) granting every scope of ``requiredScopes``.
///
/// A refused request is answered here (RFC 6750 §3, RFC 9449 §7.1): 401 with
/// `WWW-Authenticate` challenges naming the error and the API's
/// `resource_metadata`, 403 `insufficient_scope` with the `scope` needed, 401
/// `insufficient_user_authentication` with the `acr_values` and `max_age`
/// needed (``requiredAuthentication``, RFC 9470), 400
/// `invalid_request` for a malformed `Authorization` field. A verified token
/// reaches the route as ``AccessTokenRequestContext/accessToken``.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct AccessTokenMiddleware<Context: AccessTokenRequestContext>: RouterMiddleware {
    /// The API whose tokens are accepted.
    public let resource: ProtectedResource
    /// The scopes every request must have been granted.
    public let requiredScopes: [String]
    /// How the user must have authenticated, when the routes behind it care.
    public let requiredAuthentication: AuthenticationRequirement?

    /// A middleware for `resource` that requires `requiredScopes`.
    public init(_ resource: ProtectedResource, requiredScopes: [String] = []) {
        self.init(resource, requiredScopes: requiredScopes, requiredAuthentication: nil)
    }

    /// A middleware for `resource` that requires `requiredScopes` and, when
    /// given, `requiredAuthentication` (an `acr` and a recent `auth_time`).
    public init(_ resource: ProtectedResource, requiredScopes: [String] = [], requiredAuthentication: AuthenticationRequirement?) {
        self.resource = resource
        self.requiredScopes = requiredScopes
        self.requiredAuthentication = requiredAuthentication
    }

    /// Verifies the request, then calls `next` with the verified token in the context.
    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let verified: VerifiedAccessToken
        do throws(AccessFailure) {
            verified = try await resource.authenticate(
                authorization: request.headers[values: .authorization], proofs: request.headers[values: Self.dpop],
                method: request.method.rawValue, path: request.uri.path, required: requiredScopes,
                authentication: requiredAuthentication)
        } catch {
            return refusal(error)
        }
        var context = context
        context.accessToken = verified
        var response = try await next(request, context)
        if let nonce = resource.nonces?.current() { response.headers[Self.dpopNonce] = nonce }
        return response
    }

    private func refusal(_ failure: AccessFailure) -> Response {
        let refusal = resource.refusal(failure)
        var headers = HTTPFields()
        for value in refusal.challenges { headers.append(HTTPField(name: .wwwAuthenticate, value: value)) }
        if let nonce = refusal.dpopNonce { headers[Self.dpopNonce] = nonce }
        headers[.cacheControl] = "no-store"
        return Response(status: HTTPResponse.Status(code: refusal.status), headers: headers)
    }

    static var dpop: HTTPField.Name { HTTPField.Name("DPoP")! }
    static var dpopNonce: HTTPField.Name { HTTPField.Name("DPoP-Nonce")! }
}
#endif
