#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthorizationRequest {
    /// Checks an authorization response delivered to the redirect URI
    /// (RFC 6749 §4.1.2, RFC 9207), in this order:
    ///
    /// 1. the callback is for the redirect URI sent
    ///    (else ``AuthFlowError/Category/invalidResponse``);
    /// 2. `state` is present and equal, compared in constant time
    ///    (else ``AuthFlowError/Category/stateMismatch``);
    /// 3. `iss` equals the issuer when present, and is present when the
    ///    provider advertises `authorization_response_iss_parameter_supported`
    ///    (else ``AuthFlowError/Category/issuerMismatch``); when no issuer is
    ///    known (explicit endpoints), `iss` cannot be checked and is ignored;
    /// 4. an `error` response becomes ``AuthFlowError/Category/oauthError``
    ///    (for `invalid_request` to a request that was not pushed, from a
    ///    provider with a PAR endpoint, its `recovery` says to set
    ///    ``OAuthClient/usesPushedAuthorizationRequests``: a provider can
    ///    require PAR for one client without saying so in its metadata,
    ///    RFC 9126 §5);
    /// 5. a missing `code` is ``AuthFlowError/Category/invalidResponse``.
    public func validateCallback(_ callback: URL) throws -> AuthorizationGrant {
        try grant(from: checkedParameters(callback))
    }

    /// Steps 1–3: the redirect URI, `state` and `iss`; returns the parameters.
    func checkedParameters(_ callback: URL) throws -> [String: String] {
        guard AuthorizationRequest.sameEndpoint(callback, redirectURI) else {
            throw AuthFlowError.invalidResponse("callback is not for the redirect URI that was sent")
        }
        let query = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        guard let pairs = FormEncoding.decode(query) else {
            throw AuthFlowError.invalidResponse("callback query is malformed")
        }
        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            guard parameters.updateValue(value, forKey: name) == nil else {
                throw AuthFlowError.invalidResponse("callback repeats the \(name) parameter")
            }
        }

        guard let returnedState = parameters["state"] else {
            throw AuthFlowError(.stateMismatch, "callback has no state")
        }
        guard constantTimeEquals(returnedState, state) else {
            throw AuthFlowError(.stateMismatch, "callback state does not match the request")
        }

        // Without a configured issuer (explicit endpoints, no discovery) there
        // is nothing to compare `iss` with; it is then not used at all.
        if let iss = parameters["iss"], let issuer {
            guard issuer.admits(iss, tenants: issuerTenants) else {
                throw AuthFlowError(.issuerMismatch, "callback comes from issuer \(iss), expected \(issuer)")
            }
        } else if requiresIssuerParameter {
            throw AuthFlowError(.issuerMismatch, "callback has no iss although the provider promises one (RFC 9207)")
        }
        return parameters
    }

    /// Steps 4–5: an `error` response, else the code.
    func grant(from parameters: [String: String]) throws -> AuthorizationGrant {
        if let error = parameters["error"] {
            let mayNeedPAR = error == "invalid_request" && pushedRequestExpiresAt == nil && providerOffersPAR == true
            // RFC 9126 §2.2: the request_uri lives briefly; a refusal after it lapsed says why.
            let pushExpired = (error == "invalid_request_uri" || error == "invalid_request") && pushedRequestHasExpired()
            throw AuthFlowError(
                .oauthError, error,
                oauth: OAuthErrorResponse(
                    error: error, errorDescription: parameters["error_description"], errorURI: parameters["error_uri"]),
                recovery: mayNeedPAR ? AuthorizationRequest.parRecovery : pushExpired ? AuthorizationRequest.pushExpiredRecovery : nil,
                remedy: mayNeedPAR ? .usePushedAuthorizationRequests : pushExpired ? .signInAgain : nil)
        }
        guard let code = parameters["code"], !code.isEmpty else {
            throw AuthFlowError.invalidResponse("callback has neither code nor error")
        }
        let others = parameters.filter { !["code", "state", "iss"].contains($0.key) }
            .sorted { $0.key < $1.key }.map { AuthorizationOptions.Parameter($0.key, $0.value) }
        var grant = AuthorizationGrant(
            code: code, codeVerifier: pkce.verifier, redirectURI: redirectURI, clientID: clientID,
            nonce: nonce, issuer: issuer, requestedScopes: scopes, maxAge: maxAge, responseParameters: others)
        grant.requiredACRValues = requiredACRValues
        grant.acrValues = acrValues
        grant.context = context
        grant.correlationID = correlationID
        return grant
    }

    /// The advice for a refused pushed request whose `request_uri` had expired.
    static let pushExpiredRecovery =
        "The pushed authorization request expired before the sign-in page was opened: sign in again "
        + "(a new request is pushed), and open the page sooner."

    /// The advice for an `invalid_request` to a plain request when the
    /// provider offers PAR.
    static let parRecovery =
        "The provider may require pushed authorization requests (RFC 9126) for this client: "
        + "set OAuthClient.usesPushedAuthorizationRequests and sign in again."

    /// Whether `value` equals this request's `state`, compared in constant time.
    public func matchesState(_ value: String) -> Bool { constantTimeEquals(value, state) }

    /// Scheme, host, port and path equal; query and fragment ignored.
    static func sameEndpoint(_ a: URL, _ b: URL) -> Bool {
        guard let x = URLComponents(url: a, resolvingAgainstBaseURL: false),
            let y = URLComponents(url: b, resolvingAgainstBaseURL: false)
        else { return false }
        func path(_ c: URLComponents) -> String { c.percentEncodedPath.isEmpty ? "/" : c.percentEncodedPath }
        return x.scheme?.lowercased() == y.scheme?.lowercased()
            && x.host?.lowercased() == y.host?.lowercased()
            && x.port == y.port
            && path(x) == path(y)
    }
}
