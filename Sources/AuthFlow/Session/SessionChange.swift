#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A change in an ``AuthSession``, as ``AuthSession/changes`` reports it.
public enum SessionChange: Sendable, Equatable {
    /// The session holds credentials from a sign-in (``AuthSession/start(client:credentials:store:leeway:)``).
    case signedIn
    /// The access token was refreshed (here or, for a shared store, by another process).
    case refreshed
    /// The session ended; sign in again.
    case signedOut(SignOutReason)
    /// Credentials were refreshed but the store could not save them (for
    /// example a Keychain that is locked): the session keeps them, never
    /// sends the refresh token they replaced again, and saves them on its
    /// next use or at ``AuthSession/savePendingCredentials()``.
    case notSaved(AuthFlowError)
    /// Credentials that could not be saved earlier were saved.
    case saved
}

/// Why a session ended.
public enum SignOutReason: Sendable, Equatable {
    /// ``AuthSession/signOut(postLogoutRedirectURI:)`` was called, here or in another process sharing the store.
    case user
    /// The provider refused the refresh token (`invalid_grant`): it expired or was revoked.
    case refreshTokenRefused
    /// The access token expired and the provider issued no refresh token.
    case noRefreshToken
}

/// What ``AuthSession/signOut(postLogoutRedirectURI:)`` did beyond deleting
/// the local credentials (which always happens).
public struct SignOutResult: Sendable {
    /// The provider's end-session page (RP-initiated logout) to open, when
    /// it has one — handed back whether or not revocation worked.
    public var endSessionURL: URL?
    /// Revocations that failed. The local credentials are gone anyway; a
    /// failure means the provider may still honour the token until it expires.
    public var revocationFailures: [AuthFlowError]

    /// Creates a result.
    public init(endSessionURL: URL?, revocationFailures: [AuthFlowError]) {
        self.endSessionURL = endSessionURL
        self.revocationFailures = revocationFailures
    }
}
