#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2–3).
///
/// `post_logout_redirect_uri` must be registered for the client named by
/// `client_id` or by the `aud` of a valid `id_token_hint`; the user is then
/// sent back there with `state`. Without one, a "signed out" page is shown.
/// The provider keeps no browser sessions, so there is nothing else to end.
struct EndSessionEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        // GET or POST: the routes give it no other method.
        let text = request.method == "POST" ? String(decoding: request.body, as: UTF8.self) : request.query
        let form: StrictForm
        do { form = try StrictForm(text) } catch { return HTML.errorPage(error.code, error.description) }
        var clientID = form["client_id"]
        if let hint = form["id_token_hint"] {
            guard let claims = JWSSigner.claims(of: hint, signedBy: await state.keys),
                claims["iss"]?.stringValue == (await state.issuer),
                let audience = claims["aud"]?.stringValue
            else {
                return HTML.errorPage("invalid_request", "id_token_hint is not an ID token of this provider")
            }
            if let clientID, clientID != audience {
                return HTML.errorPage("invalid_request", "client_id differs from the ID token's audience")
            }
            clientID = audience
        }
        guard let target = form["post_logout_redirect_uri"] else {
            return .html(HTML.page(title: "Signed out", body: "<p>You are signed out.</p>"))
        }
        let client: ProviderClient? = if let clientID { await state.client(clientID) } else { nil }
        guard let client, RedirectURIMatcher.matches(target, registered: client.postLogoutRedirectURIs)
        else {
            return HTML.errorPage("invalid_request", "post_logout_redirect_uri is not registered for the client")
        }
        guard let value = form["state"] else { return .redirect(target) }
        return .redirect(target + (target.contains("?") ? "&" : "?") + FormEncoding.encode([("state", value)]))
    }
}
#endif
