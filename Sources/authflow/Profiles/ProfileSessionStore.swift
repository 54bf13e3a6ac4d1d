#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// Where a profile's credentials live, as `login`, `token` and `logout` see
/// it (and `status`, `userinfo` and `request`): a ``CredentialStore`` (the engine's protocol, which their sessions
/// refresh and sign out through) with the little a command needs beside it.
/// The commands talk to this and never ask which store it is;
/// ``StoreKind/withStore(profile:logger:_:)`` opens the one `--store` names.
///
/// - ``ProfileStore``: the profile's file, or the desktop keyring when the
///   profile keeps its secrets there (``ProfileKeyring``).
/// - ``SharedStore``: a PostgreSQL table shared by every machine that names
///   it; the profile's file keeps the settings.
protocol ProfileSessionStore: CredentialStore {
    /// The profile (and, in a shared table, the session ID).
    var profile: String { get }

    /// Checks, before a browser opens, everything about keeping a sign-in
    /// here that can be checked then: a sign-in the store then refuses
    /// wastes the user's time and leaves an authorization code used for
    /// nothing.
    ///
    /// - Every store: the profile's directory (which keeps the settings, and
    ///   with the file store the credentials) exists or can be made, is the
    ///   user's, and is private (mode 0700).
    /// - The desktop keyring (named, or chosen because one runs): a session
    ///   with the Secret Service and its default collection unlocked without a
    ///   prompt (a locked keyring is `storage` `keyring_locked`).
    /// - PostgreSQL: the server is reached, over TLS unless the URL says
    ///   otherwise or the host is a loopback IP, and the profile's row read
    ///   with the key (`network`, `storage`); the password file and the key
    ///   were read when the store was opened (`configuration`).
    func checkBeforeSignIn() async throws

    /// The stored credentials, or `reauthentication_required` that says how
    /// to sign in. All `authflow token` reads while the token is valid.
    func signedInCredentials() async throws -> OAuthCredentials

    /// A session over the stored credentials, with what ending the
    /// provider's session needs; nil when the profile is signed out.
    func storedSession(timeout: TimeInterval, logger: Logger) async throws -> StoredSession?

    /// Keeps a new sign-in: the credentials here, the settings in the
    /// profile's file (under its lock, so no refresh or logout of the old
    /// credentials in flight elsewhere can overwrite it).
    func saveSignIn(_ profile: Profile, client: OAuthClient) async throws -> SavedSignIn

    /// What `status` shows: the stored credentials (never a token) with the
    /// profile's issuer and resource; `reauthentication_required` when signed out.
    func status(now: Date) async throws -> Summary

    /// Deletes the profile, settings too (`logout --forget`).
    func forgetProfile() throws

    /// What `logout` says of a profile that is not signed in here.
    func notSignedIn(forget: Bool) -> String

    /// What `logout` says once signed out: `revoked` is nil without a
    /// revocation endpoint, else whether revocation succeeded.
    func signedOut(revoked: Bool?, forget: Bool) -> String
}

/// A session read from a ``ProfileSessionStore``.
struct StoredSession {
    let session: AuthSession
    /// The ID token, the end-session request's `id_token_hint`.
    let idToken: String?
    /// The loopback port for the end-session redirect (0: any).
    let port: Int
}

/// Where ``ProfileSessionStore/saveSignIn(_:client:)`` kept a sign-in, for `login`'s summary.
struct SavedSignIn {
    /// The profile as signed in (with where its credentials live).
    let profile: Profile
    /// The profile file that holds the credentials; nil when they are elsewhere.
    let path: URL?
    /// The summary's `store`; nil: the profile's own (file or secret-service).
    let store: String?
    /// A line said after the summary.
    let note: String?
}

extension ProfileSessionStore {
    /// A session over the stored credentials; `reauthentication_required` when signed out.
    func session(timeout: TimeInterval, logger: Logger) async throws -> AuthSession {
        guard let stored = try await storedSession(timeout: timeout, logger: logger) else {
            _ = try await signedInCredentials()
            throw AuthFlowError(.reauthenticationRequired, "profile \(profile) is not signed in")
        }
        return stored.session
    }
}

extension StoreKind {
    /// Runs `body` with the store this kind names for `profile`, closed afterwards.
    /// `logger` is made only when the store needs one to open.
    func withStore<T>(profile: String, logger: () -> Logger, _ body: (any ProfileSessionStore) async throws -> T) async throws -> T {
        switch self {
        case .automatic, .file, .secretService:
            return try await body(try ProfileStore(name: profile, signInChoice: self))
        case .postgresql(let address):
            return try await SharedStore.with(address, profile: profile) { try await body($0) }
        }
    }
}
#endif
