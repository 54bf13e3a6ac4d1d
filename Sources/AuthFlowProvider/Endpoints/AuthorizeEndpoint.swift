#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The authorization endpoint (RFC 6749 §4.1.1, OIDC Core §3.1.2, RFC 7636, RFC 9207).
///
/// An unknown client or redirect URI gets an error page, never a redirect.
/// Every other error redirects with `error`, `state` and `iss`; success
/// redirects with `code`, `state` and `iss`.
struct AuthorizeEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        // GET or POST: the routes give it no other method.
        let text: String
        if request.method == "POST" {
            guard request.mediaType == "application/x-www-form-urlencoded" else {
                return HTML.errorPage("invalid_request", "the body must be application/x-www-form-urlencoded")
            }
            text = String(decoding: request.body, as: UTF8.self)
        } else {
            text = request.query
        }
        // Client and redirect URI first: until both are known good, nothing is redirected.
        guard var pairs = FormEncoding.decode(text) else { return HTML.errorPage("invalid_request", "the parameters are malformed") }
        var clientIDs = pairs.filter { $0.0 == "client_id" }.map(\.1)
        let requestURIs = pairs.filter { $0.0 == "request_uri" }.map(\.1)
        let handles = pairs.filter { $0.0 == LoginPage.interactionField }.map(\.1)
        // A pushed request (RFC 9126 §4): only the pushed parameters count; the URL carries
        // client_id and request_uri. The request_uri is used up here, at once (one use); the
        // sign-in continues as an interaction with its own lifetime, whose handle the login
        // page posts back with the user's answer.
        var interaction: String?
        if !requestURIs.isEmpty || !handles.isEmpty {
            guard requestURIs.count + handles.count == 1, clientIDs.count == 1 else {
                return HTML.errorPage("invalid_request", "request_uri, or the sign-in form, is repeated or has no single client_id")
            }
            let pushed: [(String, String)]
            if let uri = requestURIs.first {
                guard let taken = await state.takePushedRequest(uri, clientID: clientIDs[0]) else {
                    return HTML.errorPage("invalid_request_uri", "the request_uri is unknown, expired, already used or another client's")
                }
                pushed = taken
                interaction = await state.beginInteraction(taken, clientID: clientIDs[0])
            } else {
                guard let live = await state.interaction(handles[0], clientID: clientIDs[0]) else {
                    return HTML.errorPage(
                        "invalid_request", "this sign-in has expired or already ended; start it again from the application")
                }
                pushed = live
                interaction = handles[0]
            }
            let answer = request.method == "POST" ? pairs.filter { LoginPage.answerFields.contains($0.0) } : []
            pairs = pushed.filter { !LoginPage.answerFields.contains($0.0) } + answer
            clientIDs = pairs.filter { $0.0 == "client_id" }.map(\.1)
        }
        let wasPushed = interaction != nil
        let redirects = pairs.filter { $0.0 == "redirect_uri" }.map(\.1)
        guard clientIDs.count == 1 else {
            return HTML.errorPage("invalid_request", clientIDs.isEmpty ? "unknown or missing client_id" : "client_id is repeated")
        }
        let found: ProviderClient?
        do throws(OAuthFailure) {
            found = try await state.resolveClient(clientIDs[0])
        } catch {
            return HTML.errorPage(error.code, error.description)
        }
        guard let client = found else { return HTML.errorPage("invalid_request", "unknown or missing client_id") }
        guard redirects.count == 1, RedirectURIMatcher.matches(redirects[0], registered: client.redirectURIs) else {
            return HTML.errorPage(
                "invalid_request",
                redirects.count > 1
                    ? "redirect_uri is repeated"
                    : redirects.isEmpty ? "redirect_uri is missing" : "redirect_uri is not registered for this client")
        }
        let redirectURI = redirects[0]
        let issuer = await state.configuration.sendsIssuerInAuthorizationResponse ? state.issuer : nil
        let stateValues = pairs.filter { $0.0 == "state" }.map(\.1)
        let reply = AuthorizationReply(redirectURI: redirectURI, state: stateValues.count == 1 ? stateValues[0] : nil, issuer: issuer)
        do throws(OAuthFailure) {
            let form = try StrictForm(FormEncoding.encode(pairs))
            if client.requirePushedAuthorizationRequests, !wasPushed {
                throw OAuthFailure.invalidRequest("this client must push its authorization requests (PAR, RFC 9126)")
            }
            let checked = try AuthorizeEndpoint.validate(form, client: client)
            return try await signIn(
                checked, form: form, client: client, reply: reply, isPost: request.method == "POST",
                interaction: interaction)
        } catch {
            return reply.error(error.code, error.description)
        }
    }

    /// A request that passed every check.
    struct CheckedRequest {
        let scopes: [String]
        let challenge: String
        let nonce: String?
        let prompt: Set<String>
        /// `resource` (RFC 8707).
        let resource: String?
        /// The first of the request's `acr_values` the provider supports.
        var acr: String? = nil
    }

    static func validate(_ form: StrictForm, client: ProviderClient) throws(OAuthFailure) -> CheckedRequest {
        if form["request"] != nil { throw OAuthFailure("request_not_supported", "request objects are not supported") }
        let responseType = try form.required("response_type")
        guard responseType == "code" else { throw OAuthFailure("unsupported_response_type", "only response_type=code is supported") }
        guard client.grantTypes.contains(GrantType.authorizationCode) else {
            throw .unauthorizedClient("the client may not use the authorization code grant")
        }
        guard let challenge = form["code_challenge"] else { throw .invalidRequest("code_challenge is required (PKCE, RFC 7636)") }
        guard let method = form["code_challenge_method"] else {
            throw .invalidRequest("code_challenge_method is required and must be S256 (plain is not supported)")
        }
        guard method == "S256" else { throw .invalidRequest("code_challenge_method must be S256 (plain is not supported)") }
        guard AuthorizationRequest.PKCE.isValidChallenge(challenge) else { throw .invalidRequest("code_challenge is not a S256 challenge") }
        let scopes = form.scopes ?? []
        if let scope = scopes.first(where: { !client.scopes.contains($0) }) {
            throw .invalidScope("the client may not request the scope \(scope)")
        }
        let prompt = Set(form["prompt"]?.split(separator: " ").map(String.init) ?? [])
        if prompt.contains("none"), prompt.count > 1 { throw .invalidRequest("prompt=none cannot be combined with other values") }
        return CheckedRequest(
            scopes: scopes, challenge: challenge, nonce: form["nonce"], prompt: prompt, resource: try ResourceIndicator.parse(form))
    }

    /// The `acr` a sign-in for `form` gets: the first of its `acr_values` in `supported`.
    static func acr(_ form: StrictForm, supported: [String]) -> String? {
        form["acr_values"]?.split(separator: " ").map(String.init).first { supported.contains($0) }
    }

    /// Signs the user in (automatically, or by the login page) and redirects with a code.
    private func signIn(
        _ checked: CheckedRequest, form: StrictForm, client: ProviderClient, reply: AuthorizationReply,
        isPost: Bool, interaction: String?
    ) async throws(OAuthFailure) -> ProviderResponse {
        let configuration = state.configuration
        let subject: String
        switch configuration.signIn {
        case .automatic(let automatic):
            subject = automatic
        case .loginPage:
            if checked.prompt.contains("none") { throw OAuthFailure("login_required", "the user is not signed in") }
            guard isPost, form["authflow_login"] == "1" else {
                return LoginPage.render(form: form, client: client, interaction: interaction, message: nil)
            }
            guard form["decision"] == "allow" else {
                if let interaction { _ = await state.endInteraction(interaction, clientID: client.id) }
                throw OAuthFailure("access_denied", "the user declined")
            }
            guard let user = PageSignIn.user(form, in: configuration.users) else {
                return LoginPage.render(form: form, client: client, interaction: interaction, message: "Wrong username or password.")
            }
            subject = user.subject
        }
        // A pushed request gives one code at most, even to concurrent posts of its sign-in form.
        if let interaction, await !state.endInteraction(interaction, clientID: client.id) {
            return HTML.errorPage("invalid_request", "this sign-in has expired or already ended; start it again from the application")
        }
        let code = await state.issueCode(
            clientID: client.id, subject: subject, scopes: checked.scopes, authTime: Date(),
            redirectURI: reply.redirectURI, challenge: checked.challenge, nonce: checked.nonce,
            dpopJKT: form["dpop_jkt"], resource: checked.resource,
            acr: Self.acr(form, supported: configuration.acrValuesSupported))
        return reply.success(code: code)
    }
}

/// Builds the redirects of an authorization response.
struct AuthorizationReply: Sendable {
    let redirectURI: String
    let state: String?
    /// Nil when the provider is configured not to send `iss`.
    let issuer: String?

    func success(code: String) -> ProviderResponse {
        redirect([("code", code)])
    }

    func error(_ code: String, _ description: String) -> ProviderResponse {
        redirect([("error", code), ("error_description", description)])
    }

    private func redirect(_ pairs: [(String, String)]) -> ProviderResponse {
        var all = pairs
        if let state { all.append(("state", state)) }
        if let issuer { all.append(("iss", issuer)) }
        let separator = redirectURI.contains("?") ? "&" : "?"
        return .redirect(redirectURI + separator + FormEncoding.encode(all))
    }
}
#endif
