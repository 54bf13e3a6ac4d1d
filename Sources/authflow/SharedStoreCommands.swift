#if CLI // the CLI package trait
import AuthFlow
import AuthFlowPostgres
import Foundation

// `login`, `token` and `logout` with `--store postgresql://…`: the
// credentials live in the shared table (the session ID is the profile
// name), the profile file keeps the settings only.

extension Login {
    /// Stores the credentials in the shared table (under the session's
    /// lock), the settings in the profile file without them, then prints the summary.
    func finishShared(_ profile: Profile, client: OAuthClient, address: PostgresStoreAddress, userInfo: OpenIDUserInfo?) async throws {
        guard let credentials = profile.credentials else { return }
        let logger = verboseOption.makeLogger()
        try await SharedStore.with(address, profile: profile.name, logger: logger) { shared in
            _ = try await AuthSession.start(client: client, credentials: credentials, store: shared.store, leeway: Profile.leeway)
        }
        var withoutCredentials = profile
        withoutCredentials.credentials = nil
        let settings = withoutCredentials
        try await ProfileStore(name: profile.name).lock.withLock { _ = try settings.save() }
        let summary = Summary(profile: profile, credentials: credentials, showTokens: showTokens, userInfo: userInfo, store: "postgresql")
        if json {
            Output.json(summary)
        } else {
            summary.printHuman(path: nil)
            Output.stderr("Signed in. The credentials are in \(address), encrypted.")
        }
    }
}

extension Token {
    /// `authflow token` over the shared table: the stored token when valid
    /// long enough, else one refresh across every machine (the others wait
    /// for the session's lock and take its result).
    func sharedToken(_ address: PostgresStoreAddress) async throws {
        let name = profileOption.profile
        let logger = verboseOption.makeLogger()
        try await SharedStore.with(address, profile: name, logger: logger) { shared in
            let record = try await shared.signedInRecord(profile: name)
            if record.credentials.token.tokenType.caseInsensitiveCompare("DPoP") == .orderedSame {
                throw AuthFlowError(
                    .configuration, "profile \(name) holds a DPoP-bound token, which is useless without a proof from its key",
                    recovery: "use `authflow request [-X METHOD] URL` to send an authorized request with a fresh proof")
            }
            if !force, !TokenValidity.needsRefresh(record.credentials, minimumValidity: minTTL, leeway: Profile.leeway, now: Date()) {
                Output.stdout(record.credentials.accessToken)
                return
            }
            let session = try await shared.session(record, profile: name, timeout: timeout, logger: logger)
            let token = force ? try await session.refreshNow().accessToken : try await session.freshAccessToken(minimumValidity: minTTL)
            // A refresh whose result could not be stored (the database lost
            // even on a new connection): one more try, else fail rather than
            // print a token whose rotated refresh token dies with this process.
            try await session.savePendingCredentials()
            Output.stdout(token)
        }
    }
}

extension Logout {
    /// Signs out of the shared session: a tombstone every machine respects,
    /// then revocation and the provider's end-session page as usual.
    func sharedSignOut(_ address: PostgresStoreAddress) async throws {
        let name = profileOption.profile
        let logger = verboseOption.makeLogger()
        try await SharedStore.with(address, profile: name, logger: logger) { shared in
            guard let record = try await shared.store.load() else {
                if forget, try Profile.loadIfPresent(name) != nil { try Profile.forget(name) }
                if json {
                    Output.json(
                        LogoutReport(profile: name, signedIn: false, revoked: false, profileDeleted: forget, endSession: .notSignedIn))
                } else {
                    Output.stderr("Profile \(name) is not signed in in the PostgreSQL store.")
                }
                return
            }
            let session = try await shared.session(record, profile: name, timeout: timeout, logger: logger)
            let result = try await session.signOut()
            if forget, try Profile.loadIfPresent(name) != nil { try Profile.forget(name) }
            try await report(result, session: session, idToken: record.credentials.token.idToken, port: 0, logger: logger) { revoked in
                switch revoked {
                case nil: "Signed out everywhere. The provider has no revocation endpoint, so the tokens stay valid until they expire."
                case true?: "Tokens revoked; signed out everywhere."
                case false?: "Signed out everywhere (locally)."
                }
            }
        }
    }
}
#endif
