import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension OAuthClient {
    /// The authorization step alone: request (pushed when the client pushes
    /// requests), user agent, callback validation — and no code exchange.
    /// The grant it returns holds the code and its PKCE verifier: an app that
    /// hands the sign-in to its backend sends it there, and the backend
    /// redeems it with ``exchange(_:)``. Treat it as a secret.
    public func authorize(
        redirectURI: URL, scopes: [String], options: AuthorizationOptions = .init(),
        userAgent: some AuthorizationUserAgent
    ) async throws -> AuthorizationGrant {
        var request = try authorizationRequest(redirectURI: redirectURI, scopes: scopes, options: options)
        if pushesAuthorizationRequests {
            try await push(&request)
            // A request_uri that lapsed before the user agent got it would only fail there: push a fresh request once.
            if request.pushedRequestHasExpired() {
                request = try authorizationRequest(redirectURI: redirectURI, scopes: scopes, options: options)
                try await push(&request)
            }
        }
        let callback = try await userAgent.authorize(request)
        let grant = try request.validateCallback(callback)
        logger.debug("callback validated")
        return grant
    }
}
