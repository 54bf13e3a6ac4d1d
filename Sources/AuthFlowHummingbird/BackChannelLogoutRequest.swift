#if Hummingbird // the Hummingbird package trait
public import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A verified back-channel logout (OpenID Connect Back-Channel Logout 1.0):
/// the provider ended a user's session, and the API ends what it holds for
/// it — every session of ``subject``, or the one session ``sessionID``.
public struct BackChannelLogoutRequest: Sendable, Equatable {
    /// `iss`: the provider (the resource's issuer, which the token named).
    public let issuer: Issuer
    /// `sub`, when the token names the user.
    public let subject: String?
    /// `sid`, when the token names one session at the provider.
    public let sessionID: String?
    /// `jti`, already checked against replay.
    public let tokenID: String
    /// `iat`.
    public let issuedAt: Date
}

/// What the app does with a verified logout: ends the matching sessions.
/// Throwing answers the provider with 400, so that it may retry.
public typealias BackChannelLogoutHandler = @Sendable (BackChannelLogoutRequest) async throws -> Void
#endif
