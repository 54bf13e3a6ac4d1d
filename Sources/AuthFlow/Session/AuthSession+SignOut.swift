#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthSession {
    /// Signs out, and wins over any refresh:
    ///
    /// 1. no new refresh starts; the refresh in flight is waited for (not
    ///    cancelled, so that a refresh token it rotated is known and revoked);
    /// 2. under the store's exclusive lock (the lock refreshes take, in every
    ///    process), the newest stored credentials are read and deleted, so no
    ///    refresh finishing later can write them back;
    /// 3. the refresh token, then the access token, are revoked (when the
    ///    provider has a revocation endpoint); an `unsupported_token_type`
    ///    answer for the access token counts as done.
    ///
    /// - Returns: the provider's end-session URL (RP-initiated logout), when
    ///   it has one, and any revocation failures beside it.
    /// - Throws: only when the local credentials cannot be deleted.
    @discardableResult
    public func signOut(postLogoutRedirectURI: URL? = nil) async throws -> SignOutResult {
        let (inFlight, renewals) = state.withLock { fields in
            fields.signedOut = true
            return (fields.refreshTask, Array(fields.resourceTasks.values))
        }
        if let inFlight { _ = try? await inFlight.value }
        for renewal in renewals { _ = try? await renewal.value }
        if let initialSave { _ = try? await initialSave.value }
        unsaved = nil
        initialSave = nil
        let (held, heldIsNewest, heldResources) = state.withLock { fields in
            defer {
                fields.credentials = nil
                fields.pendingSave = nil
                fields.resourceTokens = [:]
            }
            return (fields.credentials?.credentials, fields.pendingSave != nil, Array(fields.resourceTokens.values))
        }
        let store = store
        let record = try await exclusively { () async throws -> SessionRecord? in
            let latest = try? await store.load()
            try await store.delete()
            return latest
        }
        let stored = record?.credentials
        loaded = true
        state.withLock { $0.ready = true }
        emit(.signedOut(.user))
        guard let latest = (heldIsNewest ? held : nil) ?? stored ?? held else {
            return SignOutResult(endSessionURL: nil, revocationFailures: [])
        }
        let endSession = try? client.endSessionRequest(
            idTokenHint: latest.token.idToken ?? held?.token.idToken, postLogoutRedirectURI: postLogoutRedirectURI)?.url()
        var failures: [AuthFlowError] = []
        if client.metadata.revocationEndpoint != nil {
            failures += await revokeResourceTokens((record?.resourceTokens ?? []) + heldResources)
            failures += await client.revokeEach(latest)
            if let held, held.accessToken != latest.accessToken {
                failures += await client.revokeEach(
                    OAuthCredentials(
                        issuer: held.issuer, clientID: held.clientID,
                        token: held.token.withoutRefreshToken, idToken: nil))
            }
        }
        return SignOutResult(endSessionURL: endSession, revocationFailures: failures)
    }
}

extension AuthSession {
    /// Revokes the tokens for other resources that this session's provider
    /// issued (a refresh with `resource`, a token exchange), each once; a
    /// token from another authorization server (an identity assertion's)
    /// expires on its own.
    private func revokeResourceTokens(_ tokens: [ResourceToken]) async -> [AuthFlowError] {
        var seen = Set<String>()
        var failures: [AuthFlowError] = []
        for token in tokens where token.grant != ResourceTokenGrant.identityAssertionName && seen.insert(token.accessToken).inserted {
            failures += await client.revokeEach(token.credentials)
        }
        return failures
    }
}

extension TokenResponse {
    /// This response without its refresh token (to revoke an access token alone).
    var withoutRefreshToken: TokenResponse {
        var copy = self
        copy.refreshToken = nil
        return copy
    }
}
