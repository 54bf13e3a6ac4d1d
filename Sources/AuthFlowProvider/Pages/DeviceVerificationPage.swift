#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// The device verification page (RFC 8628 §3.3): the user enters the user
/// code (prefilled from `verification_uri_complete`), signs in unless
/// sign-in is automatic, and approves or denies.
struct DeviceVerificationPage: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        // GET or POST: the routes give it no other method.
        guard request.method == "POST" else {
            let form = (try? StrictForm(request.query))
            return render(userCode: form?["user_code"], message: nil)
        }
        let form: StrictForm
        do { form = try StrictForm(body: request) } catch { return HTML.errorPage(error.code, error.description) }
        return await decide(form)
    }

    private func decide(_ form: StrictForm) async -> ProviderResponse {
        let configuration = state.configuration
        guard let userCode = form["user_code"], await state.deviceAuthorization(userCode: userCode) != nil else {
            return render(userCode: form["user_code"], message: "Unknown or expired code.", status: 400)
        }
        let approve = form["decision"] == "allow"
        guard let subject = PageSignIn.subject(form, configuration: configuration) else {
            return render(userCode: userCode, message: "Wrong username or password.", status: 400)
        }
        guard await state.decide(userCode: userCode, approvedBy: approve ? subject : nil) else {
            return render(userCode: userCode, message: "This code was already used.", status: 400)
        }
        let text = approve ? "Device connected. You can return to your device." : "Request denied."
        return .html(HTML.page(title: approve ? "Approved" : "Denied", body: "<p>\(text)</p>"))
    }

    private func render(userCode: String?, message: String?, status: Int = 200) -> ProviderResponse {
        let credentials = PageSignIn.fields(state.configuration)
        let error = message.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? ""
        let body = """
            <p>Enter the code shown on your device.</p>
            \(error)
            <form method="post" action="\(EndpointPaths.device)">
            <label>Code <input name="user_code" value="\(HTML.escape(userCode ?? ""))" autocomplete="off"></label>
            \(credentials)
            <button name="decision" value="allow" type="submit">Allow</button>
            <button name="decision" value="deny" type="submit">Deny</button>
            </form>
            """
        return .html(HTML.page(title: "Connect a device", body: body), status: status)
    }
}
#endif
