import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A started device authorization (RFC 8628): show ``userCode`` and
/// ``verificationURI`` (or a QR code of ``verificationURIComplete``) to the
/// user, then await ``credentials(onPoll:)``.
///
/// ```swift
/// let pending = try await client.startDeviceAuthorization(scopes: ["openid", "profile"])
/// show(pending.userCode, pending.verificationURI)
/// let credentials = try await pending.credentials()
/// ```
public struct PendingDeviceAuthorization: Sendable, CustomStringConvertible, CustomReflectable {
    /// The server's response. Its device code is never shown or logged.
    public let response: DeviceAuthorizationResponse
    /// The scopes asked for.
    public let scopes: [String]
    /// When the codes expire (wall clock, for display).
    public let expiresAt: Date

    let client: OAuthClient
    let clock: any PollingClock
    let deadline: ContinuousClock.Instant

    /// The code the user enters.
    public var userCode: String { response.userCode }
    /// Where the user enters it.
    public var verificationURI: URL { response.verificationURI }
    /// The verification URI with the code in it, when the server gives one.
    public var verificationURIComplete: URL? { response.verificationURIComplete }

    /// Polls the token endpoint until the user approves, denies, or the code
    /// expires, then verifies the ID token when one is returned (there is no
    /// nonce in this flow) and returns the same ``OAuthCredentials`` as the
    /// authorization code flow.
    ///
    /// - Parameter onPoll: called after every poll with the interval it waited
    ///   and the answer (for progress output).
    /// - Throws: ``AuthFlowError`` — `oauth_error` for `access_denied` and
    ///   other refusals, `timeout` when the code expires (`expired_token` or
    ///   the `expires_in` deadline), `cancelled` when the task is cancelled.
    public func credentials(onPoll: (@Sendable (DevicePoll) -> Void)? = nil) async throws -> OAuthCredentials {
        let poller = GrantPoller(
            endpoint: client.tokenEndpoint,
            grant: [("grant_type", Self.grantType), ("device_code", response.deviceCode)],
            interval: response.interval, scopes: scopes, deadline: deadline, clock: clock, logger: client.logger,
            flow: "device authorization", expiredMessage: "the device code expired before the sign-in was approved")
        return try await poller.credentials(
            of: client, onPoll: onPoll, idTokenRequired: false, signedIn: "signed in with a device code")
    }

    /// The device-code grant type (RFC 8628 §3.4).
    static let grantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Shows the user code and URIs; the device code is redacted.
    public var description: String { "PendingDeviceAuthorization(\(response))" }

    /// The response (device code redacted), scopes and expiry; nothing of the client.
    public var customMirror: Mirror {
        Mirror(self, children: ["response": response, "scopes": scopes, "expiresAt": expiresAt], displayStyle: .struct)
    }
}
