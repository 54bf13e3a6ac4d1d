#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The approval page of backchannel authentication (OpenID CIBA Core 1.0
/// §7.3: the provider "authenticates the user and obtains consent" on the
/// authentication device). It stands in for the user's own device:
///
/// - `GET /ciba` lists the pending requests (client, binding message);
/// - `GET /ciba?request=ID` shows one, with the binding message the user
///   compares with the other screen, and Allow and Deny;
/// - `POST /ciba` (`request`, `decision`, and with the login page sign-in
///   `username` and `password`) decides it, for the user the request's hint
///   named and no other. In ping mode the client is then notified.
///
/// The page's `request` is a handle of its own, never the `auth_req_id`.
struct BackchannelApprovalPage: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        guard request.method == "POST" else {
            let form = try? StrictForm(request.query)
            if let id = form?["request"] { return await show(id, message: nil) }
            return await list()
        }
        let form: StrictForm
        do { form = try StrictForm(body: request) } catch { return HTML.errorPage(error.code, error.description) }
        return await decide(form)
    }

    private func list() async -> ProviderResponse {
        let pending = await state.pendingBackchannel()
        let items = pending.map { record in
            let message = record.bindingMessage.map { " — “\(HTML.escape($0))”" } ?? ""
            let link = "\(EndpointPaths.backchannelApproval)?request=\(record.approvalID)"
            return "<li><a href=\"\(link)\">\(HTML.escape(record.clientID))</a>\(message)</li>"
        }
        let body = items.isEmpty ? "<p>No sign-in waits for approval.</p>" : "<ul>\(items.joined())</ul>"
        return .html(HTML.page(title: "Sign-in requests", body: body))
    }

    private func show(_ id: String, message: String?, status: Int = 200) async -> ProviderResponse {
        guard let record = await state.pendingBackchannel(approvalID: id).first else {
            return .html(HTML.page(title: "Unknown request", body: "<p>This request is unknown, expired or decided.</p>"), status: 404)
        }
        let credentials = PageSignIn.fields(state.configuration)
        let error = message.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? ""
        let binding =
            record.bindingMessage.map {
                "<p>Check that your other screen shows: <strong id=\"binding-message\">\(HTML.escape($0))</strong></p>"
            } ?? ""
        let body = """
            <p><strong>\(HTML.escape(record.clientID))</strong> asks to sign you in (\(HTML.escape(record.scopes.joined(separator: " ")))).</p>
            \(binding)
            \(error)
            <form method="post" action="\(EndpointPaths.backchannelApproval)">
            <input type="hidden" name="request" value="\(HTML.escape(id))">
            \(credentials)
            <button name="decision" value="allow" type="submit">Allow</button>
            <button name="decision" value="deny" type="submit">Deny</button>
            </form>
            """
        return .html(HTML.page(title: "Approve a sign-in", body: body), status: status)
    }

    private func decide(_ form: StrictForm) async -> ProviderResponse {
        guard let id = form["request"], await !state.pendingBackchannel(approvalID: id).isEmpty else {
            return .html(HTML.page(title: "Unknown request", body: "<p>This request is unknown, expired or decided.</p>"), status: 400)
        }
        guard let subject = PageSignIn.subject(form, configuration: state.configuration) else {
            return await show(id, message: "Wrong username or password.", status: 400)
        }
        let approve = form["decision"] == "allow"
        guard let record = await state.decideBackchannel(approvalID: id, subject: subject, approve: approve) else {
            return await show(id, message: "This request is for another user.", status: 403)
        }
        if let notification = record.notification, let authRequestID = await state.backchannelRequestID(approvalID: id) {
            await BackchannelPing(logger: state.logger).send(authRequestID, to: notification.endpoint, token: notification.token)
        }
        let text = approve ? "Signed in. You can return to the other device." : "Request denied."
        return .html(HTML.page(title: approve ? "Approved" : "Denied", body: "<p>\(text)</p>"))
    }
}
#endif
