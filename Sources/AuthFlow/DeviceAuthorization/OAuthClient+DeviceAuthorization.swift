import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension OAuthClient {
    /// Starts the device authorization grant (RFC 8628 §3.1): asks the
    /// device authorization endpoint for a device code and a user code.
    ///
    /// The request carries `client_id` and `scope` and authenticates like a
    /// token request (``authentication``). A DPoP-bound client (``dpop``)
    /// also sends `dpop_jkt`, and its polls carry DPoP proofs, so the tokens
    /// are bound to its key; a `Bearer` answer is then `invalid_response`
    /// unless the binding allows the downgrade.
    ///
    /// - Parameters:
    ///   - scopes: the scopes to ask for (none when empty).
    ///   - endpoint: the device authorization endpoint, for providers that do
    ///     not publish `device_authorization_endpoint` in their metadata
    ///     (Django OAuth Toolkit); https, or http on a loopback host.
    ///   - clock: the time source of polling; tests pass a fake one.
    /// - Returns: what to show the user; await
    ///   ``PendingDeviceAuthorization/credentials(onPoll:)`` for the tokens.
    /// - Throws: ``AuthFlowError``: `configuration` without an endpoint,
    ///   `oauth_error` when the server refuses, `invalid_response` when the
    ///   answer lacks a required member.
    public func startDeviceAuthorization(
        scopes: [String], endpoint: URL? = nil,
        clock: any PollingClock = SystemPollingClock()
    ) async throws -> PendingDeviceAuthorization {
        guard let url = endpoint ?? metadata.deviceAuthorizationEndpoint else {
            throw AuthFlowError.configuration("the provider publishes no device_authorization_endpoint; give one explicitly")
        }
        try URLPolicy.requireSecure(url, "device_authorization_endpoint")
        var form: [(String, String)] = []
        if !scopes.isEmpty { form.append(("scope", scopes.joined(separator: " "))) }
        // The key the device code is for, as RFC 9449 §10 names it for a code
        // (servers ignore a parameter they do not know, RFC 6749 §3.2).
        if let dpop { form.append(("dpop_jkt", dpop.key.thumbprint)) }
        if let resource { form.append(("resource", resource.description)) }
        let answer = try await authenticatedEndpoint(url, purpose: .deviceAuthorization).post(form, what: "device authorization request")
        let received = clock.now
        let response = try DeviceAuthorizationResponse(json: answer.body)
        logger.debug(
            "device authorization started",
            metadata: [
                "verification_uri": "\(response.verificationURI.absoluteString)",
                "expires_in": "\(response.expiresIn)", "interval": "\(response.interval)",
            ])
        return PendingDeviceAuthorization(
            response: response, scopes: scopes,
            expiresAt: Date().addingTimeInterval(TimeInterval(response.expiresIn)),
            client: self, clock: clock,
            deadline: received.advanced(by: .seconds(response.expiresIn)))
    }
}
