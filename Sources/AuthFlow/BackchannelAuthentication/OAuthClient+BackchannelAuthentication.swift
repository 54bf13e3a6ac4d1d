import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension OAuthClient {
    /// Starts a Client-Initiated Backchannel Authentication (OpenID CIBA
    /// Core 1.0 §7): the provider asks the user named by the request's hint
    /// on their own device (a phone app, a push notification), showing the
    /// binding message, while this app waits without a browser.
    ///
    /// CIBA is for clients that authenticate (§7.1): a client with
    /// ``ClientAuthentication/none`` is refused here. In ping mode a fresh
    /// `client_notification_token` (256 random bits) goes with the request;
    /// hand the provider's calls to your notification endpoint to
    /// ``PendingBackchannelAuthentication/accept(_:)``.
    ///
    /// ```swift
    /// var request = BackchannelAuthenticationRequest(user: .loginHint("alice"), scopes: ["openid", "profile"])
    /// request.bindingMessage = "Sign in at desk 4"
    /// let pending = try await client.startBackchannelAuthentication(request)
    /// let credentials = try await pending.credentials()
    /// ```
    ///
    /// - Parameters:
    ///   - request: the user, scopes, binding message and mode.
    ///   - endpoint: the backchannel authentication endpoint, for providers
    ///     that do not publish `backchannel_authentication_endpoint`; https,
    ///     or http on a loopback host.
    ///   - clock: the time source of polling; tests pass a fake one.
    /// - Returns: the pending request; await
    ///   ``PendingBackchannelAuthentication/credentials(onPoll:)`` for the tokens.
    /// - Throws: ``AuthFlowError``: `configuration` for a public client, a
    ///   missing endpoint or a malformed request (an empty hint, a binding
    ///   message with a line break or over
    ///   ``BackchannelAuthenticationRequest/maximumBindingMessageLength``);
    ///   `oauth_error` when the provider refuses (`unknown_user_id`,
    ///   `expired_login_hint_token`, `invalid_binding_message`,
    ///   `access_denied`, …); `invalid_response` for a malformed answer.
    public func startBackchannelAuthentication(
        _ request: BackchannelAuthenticationRequest, endpoint: URL? = nil,
        clock: any PollingClock = SystemPollingClock()
    ) async throws -> PendingBackchannelAuthentication {
        guard authentication != .none else {
            throw AuthFlowError.configuration(
                "backchannel authentication (CIBA) needs a client that authenticates; this one is public (token_endpoint_auth_method none)")
        }
        guard let url = endpoint ?? metadata.backchannelAuthenticationEndpoint else {
            throw AuthFlowError.configuration("the provider publishes no backchannel_authentication_endpoint; give one explicitly")
        }
        try URLPolicy.requireSecure(url, "backchannel_authentication_endpoint")
        let notificationToken = request.deliveryMode == .ping ? SecureRandom.token() : nil
        var form = try request.form(notificationToken: notificationToken)
        if let resource { form.append(("resource", resource.description)) }
        let answer = try await authenticatedEndpoint(url, purpose: .backchannelAuthentication)
            .post(form, what: "backchannel authentication request")
        let received = clock.now
        let response = try BackchannelAuthenticationResponse(json: answer.body)
        logger.debug(
            "backchannel authentication started",
            metadata: [
                "hint": "\(request.user)", "mode": "\(request.deliveryMode.rawValue)",
                "expires_in": "\(response.expiresIn)", "interval": "\(response.interval)",
            ])
        return PendingBackchannelAuthentication(
            response: response, request: request,
            expiresAt: Date().addingTimeInterval(TimeInterval(response.expiresIn)),
            notificationToken: notificationToken, client: self, clock: clock,
            deadline: received.advanced(by: .seconds(response.expiresIn)))
    }
}
