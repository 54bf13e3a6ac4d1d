import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends grants to a token endpoint and interprets the answer (RFC 6749 §5).
struct TokenEndpoint: Sendable {
    let url: URL
    let clientID: String
    let authentication: ClientAuthentication
    let transport: any HTTPTransport
    let timeout: TimeInterval
    let logger: Logger
    /// DPoP proofs on each request (RFC 9449 §5), when the client is DPoP-bound.
    var dpop: DPoPBinding? = nil
    /// The RFC 8707 `resource` added to every grant, when the client has one.
    var resource: ResourceIdentifier? = nil
    /// What the endpoint answers, for the response's size limit.
    var purpose: HTTPTransportRequest.Purpose = .token

    /// Posts `grant` (without client authentication, which is added here).
    /// `allowNotApplicable` accepts the `token_type` `N_A` of a token exchange
    /// (RFC 8693 §2.2.1), which no DPoP binding applies to.
    func request(_ grant: [(String, String)], requestedScopes: [String], allowDPoP: Bool = false, allowNotApplicable: Bool = false)
        async throws -> TokenResponse
    {
        let grantType = grant.first { $0.0 == "grant_type" }?.1 ?? "?"
        var grant = grant
        if let resource, !grant.contains(where: { $0.0 == "resource" }) { grant.append(("resource", resource.description)) }
        let response = try await post(grant, what: "token request (\(grantType))")
        do {
            let token = try TokenResponse(
                json: response.body, requestedScopes: requestedScopes, allowDPoP: allowDPoP || dpop != nil,
                allowNotApplicable: allowNotApplicable)
            if token.tokenType != TokenExchangeResponse.notApplicable { try dpop?.checkTokenType(token.tokenType) }
            logger.debug(
                "token response accepted",
                metadata: [
                    "grant_type": "\(grantType)", "token_type": "\(token.tokenType)",
                    "expires_in": "\(token.expiresIn.map(String.init) ?? "-")",
                    "refresh_token": "\(token.refreshToken == nil ? "absent" : "present")",
                    "id_token": "\(token.idToken == nil ? "absent" : "present")",
                ])
            return token
        } catch let error as AuthFlowError {
            if let oauth = TokenEndpoint.oauthError(in: response.body)?.redacting(TokenEndpoint.secrets(in: grant, authentication)) {
                throw AuthFlowError(.oauthError, oauth.error, oauth: oauth)
            }
            throw error
        }
    }

    /// Posts a form with client authentication; returns a 2xx response or throws.
    func post(_ form: [(String, String)], what: String) async throws -> HTTPTransportResponse {
        var assertions: [String] = []
        // Built per attempt: a DPoP nonce retry needs a fresh client assertion (its jti is single-use).
        let build = { () throws -> HTTPTransportRequest in
            var body = form
            var headers: [(name: String, value: String)] = [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json"),
            ]
            assertions += try authentication.apply(clientID: clientID, endpoint: url, to: &body, headers: &headers)
            return HTTPTransportRequest(
                method: "POST", url: url, headers: headers, body: Data(FormEncoding.encode(body).utf8), timeout: timeout,
                purpose: purpose)
        }
        logger.debug("sending \(what)", metadata: ["url": "\(url.absoluteString)", "client_auth": "\(authentication.methodName)"])
        let response =
            if let dpop { try await dpop.send(building: build, transport: transport) } else { try await transport.send(try build()) }
        logger.debug("\(what) answered", metadata: ["status": "\(response.status)"])
        return try TokenEndpoint.requireSuccess(response, what: what, secrets: TokenEndpoint.secrets(in: form, authentication) + assertions)
    }

    /// The values of a form that must never be echoed back into an error.
    static func secrets(in form: [(String, String)], _ authentication: ClientAuthentication) -> [String] {
        let secretNames: Set<String> = [
            "code", "code_verifier", "refresh_token", "token", "device_code", "client_secret", "assertion", "subject_token", "actor_token",
            "auth_req_id", "client_notification_token", "login_hint_token", "id_token_hint", "user_code",
        ]
        return form.filter { secretNames.contains($0.0) }.map(\.1) + [authentication.secret].compactMap { $0 }
    }

    /// Maps a non-2xx response to the error it stands for.
    ///
    /// A JSON body with `error` is ``AuthFlowError/Category/oauthError``. A 5xx
    /// without one is also `oauth_error`, with the code `server_error`, and a
    /// 429 (Too Many Requests) one with `temporarily_unavailable` (its
    /// `Retry-After` in the description), so that callers treat them as "the
    /// server failed, try later" rather than as a protocol violation. Anything
    /// else, including redirects (never followed), is
    /// ``AuthFlowError/Category/invalidResponse``.
    static func requireSuccess(_ response: HTTPTransportResponse, what: String, secrets: [String] = []) throws -> HTTPTransportResponse {
        if (200..<300).contains(response.status) { return response }
        if let oauth = oauthError(in: response.body)?.redacting(secrets) {
            throw AuthFlowError(.oauthError, oauth.error, oauth: oauth)
        }
        if response.status == 401, response.body.isEmpty,
            AuthenticationChallenge.challenges(in: response).contains(where: { $0.isScheme("Basic") })
        {
            // RFC 6749 §5.2: 401 with a Basic challenge is how a server says invalid_client.
            throw AuthFlowError(
                .oauthError, "invalid_client",
                oauth: OAuthErrorResponse(
                    error: "invalid_client", errorDescription: "\(what) was refused: the client credentials are wrong (HTTP 401)"))
        }
        if response.status == 429 {
            let retryAfter =
                response.header("Retry-After").flatMap { Int($0.trimmingWhitespace()) }.map { "; retry after \($0) s" }
                ?? ""
            throw AuthFlowError(
                .oauthError, "temporarily_unavailable",
                oauth: OAuthErrorResponse(
                    error: "temporarily_unavailable", errorDescription: "\(what) was rate-limited (HTTP 429\(retryAfter))"))
        }
        if (500..<600).contains(response.status) {
            throw AuthFlowError(
                .oauthError, "server_error",
                oauth: OAuthErrorResponse(
                    error: "server_error", errorDescription: "\(what) failed with HTTP \(response.status)"))
        }
        if (300..<400).contains(response.status) {
            throw AuthFlowError.invalidResponse("\(what) was answered with a redirect (HTTP \(response.status)), which is not followed")
        }
        throw AuthFlowError.invalidResponse("\(what) failed with HTTP \(response.status) and no OAuth error")
    }

    /// The OAuth error in a JSON body, if there is one.
    static func oauthError(in body: Data) -> OAuthErrorResponse? {
        guard let object = JSONMemberValue.object(from: body), let code = object["error"]?.stringValue, !code.isEmpty else { return nil }
        return OAuthErrorResponse(
            error: code, errorDescription: object["error_description"]?.stringValue,
            errorURI: object["error_uri"]?.stringValue)
    }
}
