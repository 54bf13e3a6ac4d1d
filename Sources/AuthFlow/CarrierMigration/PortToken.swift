#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A carrier's statement that a user moved to another carrier: a JWT the
/// carrier the user left signs with its slow-rotating key, carrying the
/// user's identifier at the new carrier, verified by ``PortTokenVerifier``.
///
/// Carriers that sign users in (ZenKey) give each app a pairwise `sub`, so a
/// user who changes carrier arrives with a `sub` the app's backend has
/// never seen. The new carrier's ID token then carries the port token in
/// its `aka` claim: `iss` the previous carrier, `sub` the user's new
/// identifier, `aud` the app's client ID, `iat`, and no `exp`. Once it is
/// verified, the backend moves the user's records to the new `sub`.
public struct PortToken: Sendable, Equatable {
    /// The carrier the user left (the token's `iss`), one of the trusted set.
    public let previousIssuer: Issuer
    /// `sub`: the user's identifier at the new carrier.
    public let subject: String
    /// `iat`: when the previous carrier signed it.
    public let issuedAt: Date
    /// The verified token, for any other claim the carrier includes.
    public let jwt: VerifiedJWT

    init(previousIssuer: Issuer, subject: String, issuedAt: Date, jwt: VerifiedJWT) {
        self.previousIssuer = previousIssuer
        self.subject = subject
        self.issuedAt = issuedAt
        self.jwt = jwt
    }

    /// The claim of a new carrier's ID token that carries the port token.
    public static let claimName = "aka"
}
