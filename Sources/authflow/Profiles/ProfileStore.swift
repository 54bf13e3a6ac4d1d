#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// The credentials part of a profile as a ``CredentialStore``, with the
/// cross-process lock on `NAME.json.lock`, so that `AuthSession` refreshes
/// once across parallel `authflow token` processes and `logout` waits for a
/// refresh in flight. Deleting forgets the credentials only; the settings stay.
struct ProfileStore: ProfileSessionStore {
    let name: String
    let lock: FileLock
    /// Where a new sign-in keeps its credentials: the file, the keyring, or
    /// (``StoreKind/automatic``) the keyring when one runs (``Login/credentialStore(for:)``).
    var signInChoice: StoreKind = .automatic

    var profile: String { name }

    init(name: String, signInChoice: StoreKind = .automatic) throws {
        self.name = name
        self.signInChoice = signInChoice
        lock = FileLock(url: try Profile.url(for: name).appendingPathExtension("lock"), name: "profile \(name)")
    }

    func load() async throws -> SessionRecord? {
        guard let profile = try Profile.loadIfPresent(name), let credentials = profile.credentials else { return nil }
        var record = SessionRecord(
            credentials: credentials, metadata: profile.metadata,
            clientAuthenticationMethod: ClientAuthenticationMethod(rawValue: profile.clientAuthentication))
        record.resource = profile.resource
        record.registration = profile.registration
        record.resourceTokens = profile.resourceTokens
        return record
    }

    func save(_ record: SessionRecord) async throws {
        guard var profile = try Profile.loadIfPresent(name) else {
            throw AuthFlowError(.reauthenticationRequired, "profile \(name) was deleted meanwhile")
        }
        profile.credentials = record.credentials
        profile.resourceTokens = record.resourceTokens
        try profile.save()
    }

    func delete() async throws {
        guard var profile = try Profile.loadIfPresent(name), profile.credentials != nil else { return }
        profile.credentials = nil
        profile.resourceTokens = []
        try profile.save()
    }

    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await lock.withLock(body)
    }

    func checkBeforeSignIn() async throws {
        try ProfileFile.prepareDirectory(of: try Profile.url(for: name))
        switch signInChoice {
        case .secretService: try ProfileKeyring.checkWritable(profile: name)
        case .automatic: if ProfileKeyring.isAvailable() { try ProfileKeyring.checkWritable(profile: name) }
        case .file, .postgresql: return
        }
    }

    /// The name and the credentials alone: no client, no session, no provider metadata.
    func signedInCredentials() async throws -> OAuthCredentials {
        try Profile.loadCredentials(name).signedInCredentials()
    }

    func storedSession(timeout: TimeInterval, logger: Logger) async throws -> StoredSession? {
        let profile = try Profile.load(name)
        guard let credentials = profile.credentials else { return nil }
        return StoredSession(
            session: try profile.session(timeout: timeout, logger: logger), idToken: credentials.token.idToken, port: profile.port)
    }

    func saveSignIn(_ profile: Profile, client: OAuthClient) async throws -> SavedSignIn {
        var profile = profile
        profile.credentialStore = Login.credentialStore(for: signInChoice)
        let toSave = profile.keepingCredentialSettings()
        let path = try await lock.withLock {
            Login.leaveKeyringIfMoving(toSave)
            return try toSave.save()
        }
        return SavedSignIn(profile: profile, path: path, store: nil, note: nil)
    }

    func status(now: Date) async throws -> Summary {
        let profile = try Profile.load(name)
        return Summary(profile: profile, credentials: try profile.signedInCredentials(), showTokens: false, includeExpired: true, now: now)
            .listing(profile.resourceTokens, now: now)
    }

    func forgetProfile() throws { try Profile.forget(name) }

    func notSignedIn(forget: Bool) -> String {
        forget ? "Profile \(name) deleted (it was not signed in)." : "Profile \(name) is not signed in."
    }

    func signedOut(revoked: Bool?, forget: Bool) -> String {
        let what = forget ? "profile \(name) deleted" : "credentials of profile \(name) deleted (its settings stay)"
        return switch revoked {
        case nil: "Signed out; \(what). The provider has no revocation endpoint, so the tokens stay valid until they expire."
        case true?: "Tokens revoked; \(what)."
        case false?: "Signed out locally; \(what)."
        }
    }
}

extension Profile {
    /// A session over this profile's credentials, refreshing and signing out
    /// under the profile's lock.
    func session(timeout: TimeInterval, logger: Logger, leeway: TimeInterval = Profile.leeway) throws -> AuthSession {
        AuthSession.resume(
            client: try client(timeout: timeout, logger: logger), store: try ProfileStore(name: name),
            credentials: try signedInCredentials(), leeway: leeway)
    }
}
#endif
