#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The backchannel authentication endpoint (OpenID CIBA Core 1.0 §7):
/// an authenticated, confidential client names a user by exactly one hint;
/// the provider answers with an `auth_req_id` and asks the user on the
/// approval page (``BackchannelApprovalPage``), the stand-in for the user's
/// own device.
///
/// - `login_hint`: a user's username, subject, email claim, or
///   `acct:username@host` of this provider (as WebFinger names them).
/// - `login_hint_token`: a JWT this provider signed, with `exp` (past:
///   `expired_login_hint_token`) and the user as `sub`, or as a `sub_id`
///   (RFC 9493) of format `opaque` (`id`), `email` or `iss_sub` (this issuer).
/// - `id_token_hint`: an ID token this provider issued to this client.
///
/// `binding_message` is at most 128 printable characters on one line
/// (`invalid_binding_message`); `user_code` is not supported
/// (`backchannel_user_code_parameter_supported` is false) and ignored;
/// `requested_expiry` can shorten the request's lifetime, not extend it. A
/// client registered for ping mode must send `client_notification_token`.
struct BackchannelAuthenticationEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do throws(OAuthFailure) {
            let (form, client) = try await state.authenticatedForm(request)
            guard client.isConfidential else {
                throw OAuthFailure.unauthorizedClient("backchannel authentication needs a confidential client (CIBA Core §7.1)")
            }
            guard client.grantTypes.contains(GrantType.ciba) else {
                throw OAuthFailure.unauthorizedClient("the client may not use the CIBA grant")
            }
            let scopes = form.scopes ?? []
            guard scopes.contains("openid") else { throw OAuthFailure.invalidScope("the scope must include openid (CIBA Core §7.1)") }
            if let scope = scopes.first(where: { !client.scopes.contains($0) }) {
                throw OAuthFailure.invalidScope("the client may not request the scope \(scope)")
            }
            let subject = try await user(form, client: client)
            let message = form["binding_message"]
            if let message, !BackchannelAuthenticationRequest.isBindingMessage(message) {
                let limit = BackchannelAuthenticationRequest.maximumBindingMessageLength
                throw OAuthFailure("invalid_binding_message", "the binding message must be 1 to \(limit) printable characters")
            }
            var lifetime = state.configuration.lifetimes.deviceCode
            if let text = form["requested_expiry"] {
                guard let seconds = Int(text), seconds > 0 else {
                    throw OAuthFailure.invalidRequest("requested_expiry must be a positive whole number of seconds")
                }
                lifetime = min(lifetime, TimeInterval(seconds))
            }
            let notificationToken = form["client_notification_token"]
            if client.backchannelNotificationEndpoint != nil {
                guard let notificationToken, !notificationToken.isEmpty, notificationToken.utf8.count <= 1024 else {
                    throw OAuthFailure.invalidRequest("a client in ping mode must send client_notification_token (CIBA Core §7.1)")
                }
            }
            let (id, _) = await state.startBackchannel(
                client: client, subject: subject, scopes: scopes, bindingMessage: message,
                acr: AuthorizeEndpoint.acr(form, supported: state.configuration.acrValuesSupported), lifetime: lifetime,
                notificationToken: notificationToken, resource: try ResourceIndicator.parse(form))
            return .json(
                .object([
                    "auth_req_id": .string(id), "expires_in": .number(lifetime.rounded(.up)),
                    "interval": .number(state.configuration.lifetimes.devicePollingInterval.rounded(.up)),
                ]), noStore: true)
        } catch {
            return error.response
        }
    }

    /// The subject of the one hint (§7.1: exactly one of the three).
    private func user(_ form: StrictForm, client: ProviderClient) async throws(OAuthFailure) -> String {
        let hints = ["login_hint", "login_hint_token", "id_token_hint"].filter { form[$0] != nil }
        guard hints.count == 1 else {
            throw OAuthFailure.invalidRequest("send exactly one of login_hint, login_hint_token and id_token_hint (CIBA Core §7.1)")
        }
        let users = state.configuration.users
        let issuer = await state.issuer
        func known(_ subject: String?) throws(OAuthFailure) -> String {
            guard let subject, users.contains(where: { $0.subject == subject }) else {
                throw OAuthFailure("unknown_user_id", "the hint names no user of this provider")
            }
            return subject
        }
        if let hint = form["login_hint"] {
            let name = WebFingerEndpoint.username(in: hint, issuer: issuer) ?? hint
            let user = users.first {
                $0.username == name || $0.subject == hint || $0.claims["email"]?.stringValue == hint
            }
            return try known(user?.subject)
        }
        let keys = await state.keys
        if let token = form["id_token_hint"] {
            guard let claims = JWSSigner.claims(of: token, signedBy: keys), claims["iss"]?.stringValue == issuer,
                Self.audiences(claims["aud"]).contains(client.id)
            else {
                throw OAuthFailure.invalidRequest("id_token_hint is not an ID token this provider issued to this client")
            }
            return try known(claims["sub"]?.stringValue)
        }
        guard let token = form["login_hint_token"], let claims = JWSSigner.claims(of: token, signedBy: keys),
            claims["iss"]?.stringValue == issuer
        else {
            throw OAuthFailure.invalidRequest("login_hint_token is not a token this provider signed")
        }
        guard case .number(let expiry)? = claims["exp"] else {
            throw OAuthFailure.invalidRequest("login_hint_token has no exp")
        }
        guard Date(timeIntervalSince1970: expiry) > Date() else {
            throw OAuthFailure("expired_login_hint_token", "the login_hint_token has expired")
        }
        return try known(Self.subject(claims, issuer: issuer, users: users))
    }

    /// `sub`, or the `sub_id` of RFC 9493 (`opaque`, `email`, `iss_sub` of this issuer).
    private static func subject(_ claims: [String: JSONMemberValue], issuer: String, users: [ProviderUser]) -> String? {
        if let subject = claims["sub"]?.stringValue { return subject }
        guard let id = claims["sub_id"]?.objectValue else { return nil }
        switch id["format"]?.stringValue {
        case "opaque": return id["id"]?.stringValue
        case "iss_sub": return id["iss"]?.stringValue == issuer ? id["sub"]?.stringValue : nil
        case "email":
            let email = id["email"]?.stringValue
            return users.first { email != nil && $0.claims["email"]?.stringValue == email }?.subject
        default: return nil
        }
    }

    /// `aud` as a string or an array of strings.
    private static func audiences(_ value: JSONMemberValue?) -> [String] {
        switch value {
        case .string(let one)?: [one]
        case .array(let many)?: many.compactMap(\.stringValue)
        default: []
        }
    }
}
#endif
