#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0
/// §2–3): the provider's `end_session_endpoint` and the parameters to send
/// it, by GET (``url()``) or by POST (``formBody``, which the specification
/// also allows and which keeps `id_token_hint` out of URLs, histories and
/// command lines).
///
/// With a `post_logout_redirect_uri` the request carries a fresh `state`;
/// the provider confirms the logout by redirecting there with it, which
/// ``validateRedirect(_:)`` checks. Its `description` names the endpoint and
/// the parameter names only, never the ID token or the state.
public struct EndSessionRequest: Sendable, CustomStringConvertible {
    /// The provider's `end_session_endpoint` (its own query, if any, stays on it).
    public let endpoint: URL
    /// `client_id`, `id_token_hint`, `post_logout_redirect_uri`, `state`: those that apply, in that order.
    public let parameters: [AuthorizationOptions.Parameter]
    /// Where the provider sends the browser back after the logout.
    public let postLogoutRedirectURI: URL?
    /// The `state` sent with a post-logout redirect URI (nil without one).
    public let state: String?

    init(endpoint: URL, clientID: String, idTokenHint: String?, postLogoutRedirectURI: URL?, state: String?) {
        self.endpoint = endpoint
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.state = postLogoutRedirectURI == nil ? nil : state
        var parameters = [AuthorizationOptions.Parameter("client_id", clientID)]
        if let idTokenHint { parameters.append(.init("id_token_hint", idTokenHint)) }
        if let postLogoutRedirectURI {
            parameters.append(.init("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString))
            if let state = self.state { parameters.append(.init("state", state)) }
        }
        self.parameters = parameters
    }

    /// The request as a URL to open (GET): the parameters in the query.
    ///
    /// - Throws: `AuthFlowError` (`configuration`) when the endpoint's own
    ///   query already has one of the parameters.
    public func url() throws -> URL {
        try AuthorizationRequest.appending(parameters.map { ($0.name, $0.value) }, to: endpoint)
    }

    /// The parameters as an `application/x-www-form-urlencoded` body, to POST to ``endpoint``.
    public var formBody: String { FormEncoding.encode(parameters.map { ($0.name, $0.value) }) }

    /// Whether `value` is this request's `state` (constant time); false when it has none.
    public func matchesState(_ value: String) -> Bool {
        guard let state else { return false }
        return constantTimeEquals(value, state)
    }

    /// Checks the provider's redirect back to ``postLogoutRedirectURI``: the
    /// same endpoint, and `state` present (once) and equal.
    ///
    /// - Throws: `AuthFlowError` `invalid_response` when the URL is not for
    ///   the post-logout redirect URI or its query is malformed,
    ///   `state_mismatch` when `state` is missing, repeated or different.
    public func validateRedirect(_ redirect: URL) throws {
        guard let postLogoutRedirectURI, AuthorizationRequest.sameEndpoint(redirect, postLogoutRedirectURI) else {
            throw AuthFlowError.invalidResponse("the redirect is not for the post-logout redirect URI that was sent")
        }
        let query = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        guard let pairs = FormEncoding.decode(query) else {
            throw AuthFlowError.invalidResponse("the post-logout redirect's query is malformed")
        }
        let states = pairs.filter { $0.0 == "state" }.map(\.1)
        guard states.count == 1, matchesState(states[0]) else {
            throw AuthFlowError(.stateMismatch, "the post-logout redirect's state does not match the request")
        }
    }

    /// The endpoint and the parameter names, never their values.
    public var description: String {
        "EndSessionRequest(endpoint: \(endpoint.absoluteString), parameters: \(parameters.map(\.name).joined(separator: ",")))"
    }
}

extension OAuthClient {
    /// The RP-initiated logout request, or nil when the provider has no
    /// `end_session_endpoint`. With `postLogoutRedirectURI` it carries a
    /// fresh random `state`.
    public func endSessionRequest(idTokenHint: String?, postLogoutRedirectURI: URL? = nil) -> EndSessionRequest? {
        guard let endpoint = metadata.endSessionEndpoint else { return nil }
        return EndSessionRequest(
            endpoint: endpoint, clientID: clientID, idTokenHint: idTokenHint,
            postLogoutRedirectURI: postLogoutRedirectURI, state: SecureRandom.token())
    }
}
