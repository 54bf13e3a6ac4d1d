import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A started backchannel authentication (OpenID CIBA Core 1.0): show the
/// ``bindingMessage`` and wait for ``credentials(onPoll:)`` while the
/// provider asks the user on their own device.
///
/// In ping mode, pass each call the provider makes to your notification
/// endpoint to ``accept(_:)``: the token request then goes out at once
/// instead of at the next poll.
public struct PendingBackchannelAuthentication: Sendable, CustomStringConvertible, CustomReflectable {
    /// The provider's acknowledgement. Its `auth_req_id` is never shown or logged.
    public let response: BackchannelAuthenticationResponse
    /// What was asked.
    public let request: BackchannelAuthenticationRequest
    /// When the request expires (wall clock, for display).
    public let expiresAt: Date

    let notificationToken: String?
    let client: OAuthClient
    let clock: any PollingClock
    let deadline: ContinuousClock.Instant
    let doorbell = PollDoorbell()

    init(
        response: BackchannelAuthenticationResponse, request: BackchannelAuthenticationRequest, expiresAt: Date,
        notificationToken: String?, client: OAuthClient, clock: any PollingClock, deadline: ContinuousClock.Instant
    ) {
        self.response = response
        self.request = request
        self.expiresAt = expiresAt
        self.notificationToken = notificationToken
        self.client = client
        self.clock = clock
        self.deadline = deadline
    }

    /// The message the user should also see on their device.
    public var bindingMessage: String? { request.bindingMessage }

    /// Polls the token endpoint (`grant_type=urn:openid:params:grant-type:ciba`,
    /// §10.1) until the user approves, denies, or the request expires, then
    /// verifies the ID token (required: the request asked for `openid`; no
    /// nonce in this flow; its `acr` against the request's when
    /// ``BackchannelAuthenticationRequest/checksACRValues`` is set).
    ///
    /// The polling rules are the device flow's: `authorization_pending`,
    /// `slow_down` (5 more seconds from then on), a timed-out request
    /// (interval doubled), `expired_token` or the `expires_in` deadline
    /// (``AuthFlowError/Category/timeout``), `access_denied`
    /// (``AuthFlowError/Category/oauthError``), task cancellation
    /// (``AuthFlowError/Category/cancelled``).
    ///
    /// - Parameter onPoll: called after every poll with the time it waited and the answer.
    public func credentials(onPoll: (@Sendable (DevicePoll) -> Void)? = nil) async throws -> OAuthCredentials {
        let poller = GrantPoller(
            endpoint: client.tokenEndpoint,
            grant: [("grant_type", Self.grantType), ("auth_req_id", response.authenticationRequestID)],
            interval: response.interval, scopes: request.sentScopes, deadline: deadline, clock: clock, logger: client.logger,
            flow: "backchannel authentication",
            expiredMessage: "the backchannel authentication request expired before the user approved it",
            doorbell: request.deliveryMode == .ping ? doorbell : nil)
        return try await poller.credentials(
            of: client, onPoll: onPoll, idTokenRequired: true,
            acrValues: request.checksACRValues && !request.acrValues.isEmpty ? request.acrValues : nil,
            signedIn: "signed in by backchannel authentication")
    }

    /// Takes a ping-mode notification (§10.2): true when it carries this
    /// request's `client_notification_token` (compared in constant time) and
    /// `auth_req_id`, which wakes ``credentials(onPoll:)`` for an immediate
    /// token request; false otherwise (answer the caller 401 or 400), and
    /// always false in poll mode.
    @discardableResult
    public func accept(_ notification: BackchannelNotification) -> Bool {
        guard let notificationToken, constantTimeEquals(notification.bearerToken, notificationToken),
            constantTimeEquals(notification.authenticationRequestID, response.authenticationRequestID)
        else { return false }
        doorbell.ring()
        return true
    }

    /// The grant type of the token request (§10.1).
    static let grantType = "urn:openid:params:grant-type:ciba"

    /// The mode, binding message and expiry; no identifier or token.
    public var description: String {
        "PendingBackchannelAuthentication(mode: \(request.deliveryMode.rawValue), user: \(request.user), "
            + "binding_message: \(request.bindingMessage ?? "-"), \(response))"
    }

    /// The response (`auth_req_id` redacted), request and expiry; nothing of the client.
    public var customMirror: Mirror {
        Mirror(self, children: ["response": response, "request": request, "expiresAt": expiresAt], displayStyle: .struct)
    }
}
