#if EmbeddedProvider // the EmbeddedProvider package trait
/// The login and consent page of the authorization endpoint: it posts the
/// authorization request back with the user's name, password and decision.
/// Every parameter the endpoint reads goes back, `resource` (RFC 8707)
/// included, so that the code is bound to the resource asked for.
enum LoginPage {
    static let carried = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
        "code_challenge_method", "prompt", "max_age", "login_hint", "dpop_jkt", "resource", "acr_values",
    ]
    /// What the page adds to the request: taken from the posted form only,
    /// never from pushed parameters.
    static let answerFields: Set<String> = ["authflow_login", "username", "password", "decision"]
    /// The field that carries a pushed request's interaction handle back.
    static let interactionField = "authflow_interaction"

    /// The page for the request in `form`; for a pushed request (its
    /// `interaction` handle), the form posts back only `client_id` and the
    /// handle, and the provider reads the rest from what was pushed.
    static func render(form: StrictForm, client: ProviderClient, interaction: String? = nil, message: String?) -> ProviderResponse {
        var hidden = "<input type=\"hidden\" name=\"authflow_login\" value=\"1\">"
        let posted: [(String, String?)] =
            if let interaction { [("client_id", client.id), (interactionField, interaction)] } else { carried.map { ($0, form[$0]) } }
        for case (let name, let value?) in posted {
            hidden += "<input type=\"hidden\" name=\"\(name)\" value=\"\(HTML.escape(value))\">"
        }
        let scopes = form.scopes?.joined(separator: ", ") ?? "(none)"
        let error = message.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? ""
        let body = """
            <p><strong>\(HTML.escape(client.id))</strong> asks to sign you in, with access to: \(HTML.escape(scopes)).</p>
            \(error)
            <form method="post" action="\(EndpointPaths.authorize)">
            \(hidden)
            <label>Username <input name="username" autocomplete="username" value="\(HTML.escape(form["login_hint"] ?? form["username"] ?? ""))" autofocus></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button name="decision" value="allow" type="submit">Sign in and allow</button>
            <button name="decision" value="deny" type="submit">Deny</button>
            </form>
            """
        return .html(HTML.page(title: "Sign in", body: body))
    }
}
#endif
