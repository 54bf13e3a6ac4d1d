import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The answer of a pushed authorization request endpoint (RFC 9126 §2.2).
struct PushedAuthorizationResponse: Sendable {
    let requestURI: String
    let expiresIn: Int

    init(json data: Data) throws {
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("the pushed authorization response is not a JSON object")
        }
        guard let uri = object["request_uri"]?.stringValue, !uri.isEmpty else {
            throw AuthFlowError.invalidResponse("the pushed authorization response has no request_uri")
        }
        guard let seconds = object["expires_in"]?.numberValue, seconds >= 1, seconds <= 86_400, seconds.rounded() == seconds else {
            throw AuthFlowError.invalidResponse("the pushed authorization response has no valid expires_in")
        }
        requestURI = uri
        expiresIn = Int(seconds)
    }
}

extension ProviderMetadata {
    /// `require_pushed_authorization_requests` (RFC 9126 §5): the provider
    /// accepts authorization requests only through its PAR endpoint.
    public var requirePushedAuthorizationRequests: Bool {
        document["require_pushed_authorization_requests"]?.boolValue ?? false
    }
}

extension OAuthClient {
    /// Whether ``signIn(redirectURI:scopes:options:userAgent:)`` pushes the
    /// authorization request first: when the provider requires it, or when
    /// the caller asks (``usesPushedAuthorizationRequests``).
    public var pushesAuthorizationRequests: Bool {
        usesPushedAuthorizationRequests || metadata.requirePushedAuthorizationRequests
    }

    /// A new authorization request pushed to the provider first (RFC 9126):
    /// every parameter goes in an authenticated POST to the
    /// `pushed_authorization_request_endpoint`, and the returned request's
    /// ``AuthorizationRequest/url`` carries only `client_id` and the
    /// `request_uri`, valid until ``AuthorizationRequest/pushedRequestExpiresAt``.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the provider
    ///   has no PAR endpoint; `oauth_error` with the server's answer when it
    ///   refuses; `invalid_response` for a redirect (never followed) or an
    ///   answer without `request_uri` / `expires_in`.
    public func pushedAuthorizationRequest(
        redirectURI: URL, scopes: [String],
        options: AuthorizationOptions = .init()
    ) async throws -> AuthorizationRequest {
        var request = try authorizationRequest(redirectURI: redirectURI, scopes: scopes, options: options)
        try await push(&request)
        return request
    }

    /// Pushes `request`'s parameters and rewrites its URL to the `request_uri` form.
    func push(_ request: inout AuthorizationRequest) async throws {
        guard let endpoint = metadata.pushedAuthorizationRequestEndpoint else {
            throw AuthFlowError(
                .configuration, "the provider publishes no pushed_authorization_request_endpoint",
                recovery: "Sign in without pushed authorization requests (OAuthClient.usesPushedAuthorizationRequests), "
                    + "or use a provider that supports PAR (RFC 9126).",
                remedy: .signInWithoutPushedAuthorizationRequests)
        }
        try URLPolicy.requireSecure(endpoint, "pushed_authorization_request_endpoint")
        func pairs(_ url: URL) -> [(String, String)] {
            FormEncoding.decode(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? "") ?? []
        }
        // The endpoint's own query stays in the browser URL; client_id is
        // added by the client authentication (or known from it).
        let parameters = pairs(request.url).dropFirst(pairs(metadata.authorizationEndpoint).count).filter { $0.0 != "client_id" }
        let pushEndpoint = authenticatedEndpoint(endpoint, purpose: .pushedAuthorization)
        let sent = Date()
        let answer = try await pushEndpoint.post(Array(parameters), what: "pushed authorization request")
        let response = try PushedAuthorizationResponse(json: answer.body)
        request.url = try AuthorizationRequest.appending(
            [("client_id", clientID), ("request_uri", response.requestURI)],
            to: metadata.authorizationEndpoint)
        request.pushedRequestExpiresAt = sent.addingTimeInterval(TimeInterval(response.expiresIn))
        logger.debug("authorization request pushed", metadata: ["expires_in": "\(response.expiresIn)"])
    }
}
