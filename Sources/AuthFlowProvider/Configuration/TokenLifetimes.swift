#if EmbeddedProvider // the EmbeddedProvider package trait
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How long what the provider issues stays valid, in seconds.
public struct TokenLifetimes: Sendable, Equatable {
    /// Authorization codes (default 60 s).
    public var authorizationCode: TimeInterval
    /// Access tokens (default 1 hour).
    public var accessToken: TimeInterval
    /// ID tokens (default 1 hour).
    public var idToken: TimeInterval
    /// Refresh tokens (default 30 days).
    public var refreshToken: TimeInterval
    /// Device codes and user codes, and backchannel authentication requests
    /// (`auth_req_id`, unless the client asks for less with `requested_expiry`)
    /// (default 10 minutes).
    public var deviceCode: TimeInterval
    /// The polling interval announced for device codes and backchannel
    /// requests (default 5 s; tests may use less).
    public var devicePollingInterval: TimeInterval
    /// How much `slow_down` adds to the polling interval (RFC 8628 §3.5,
    /// OpenID CIBA Core 1.0 §11: 5 s).
    public var deviceSlowDownIncrement: TimeInterval
    /// Pushed authorization requests' `request_uri` (default 60 s, RFC 9126 §2.2).
    public var pushedRequest: TimeInterval
    /// A login-page interaction begun from a pushed request (default 10
    /// minutes): the `request_uri` is used up when the browser brings it,
    /// and the user then has this long to sign in.
    public var interaction: TimeInterval = 600

    /// Creates lifetimes; every default is the usual production value.
    public init(
        authorizationCode: TimeInterval = 60, accessToken: TimeInterval = 3600, idToken: TimeInterval = 3600,
        refreshToken: TimeInterval = 30 * 86_400, deviceCode: TimeInterval = 600,
        devicePollingInterval: TimeInterval = 5, deviceSlowDownIncrement: TimeInterval = 5, pushedRequest: TimeInterval = 60
    ) {
        self.authorizationCode = authorizationCode
        self.accessToken = accessToken
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.deviceCode = deviceCode
        self.devicePollingInterval = devicePollingInterval
        self.deviceSlowDownIncrement = deviceSlowDownIncrement
        self.pushedRequest = pushedRequest
    }
}
#endif
