import Foundation
import Logging

extension AuthSession {
    /// Refreshes now, whatever the expiry says (unless a refresh is already
    /// in flight or another process refreshed meanwhile: then that result).
    public nonisolated func refreshNow() async throws -> OAuthCredentials {
        if !state.withLock({ $0.ready }) { try await loadIfNeeded() }
        guard let current = state.withLock({ $0.credentials?.credentials.accessToken }) else {
            throw AuthFlowError.notSignedIn
        }
        return try await held(Demand(rejected: current, minimumValidity: nil)).credentials
    }

    /// Cancels the refresh in flight, if there is one, for a platform layer
    /// whose process is about to be suspended (iOS background time
    /// expiring). The refresh stops wherever stopping loses nothing: waiting
    /// for the store's exclusive access, before a retry. A token request
    /// already sent is left to finish (when the process runs again), because
    /// its answer may hold a rotated refresh token that exists nowhere else;
    /// its result is saved as usual.
    package nonisolated func cancelRefreshInFlight() {
        let inFlight = state.withLock { $0.refreshTask }
        inFlight?.cancel()
    }

    /// The body of the refresh task: refreshes, then, before the task's value
    /// reaches any waiter, stores the outcome (new credentials, or none after
    /// the session ended) and clears the refresh in flight, so later callers
    /// see the new credentials.
    nonisolated func refresh(from current: OAuthCredentials, rejected: String?) async throws -> HeldCredentials {
        do {
            let outcome = try await refreshUnderLock(from: current, rejected: rejected)
            let refreshed = HeldCredentials(outcome.credentials)
            state.withLock { fields in
                if !fields.signedOut {
                    fields.credentials = refreshed
                    fields.pendingSave = outcome.pendingSave
                    if outcome.pendingSave != nil { fields.ready = false }
                }
                fields.refreshTask = nil
            }
            emit(.refreshed)
            if let pending = outcome.pendingSave { emit(.notSaved(pending.error)) }
            return refreshed
        } catch let ended as SessionEnded {
            state.withLock { fields in
                fields.credentials = nil
                fields.signedOut = true
                fields.refreshTask = nil
            }
            emit(.signedOut(ended.reason))
            throw ended.error
        } catch let ended as AuthFlowError where ended.category == .reauthenticationRequired {
            // The store ended the session under its lock (a shared store that
            // found a refresh whose reply was lost): no refresh brings it back.
            state.withLock { fields in
                fields.credentials = nil
                fields.signedOut = true
                fields.refreshTask = nil
            }
            emit(.signedOut(.refreshTokenRefused))
            throw ended
        } catch is CancellationError {
            state.withLock { $0.refreshTask = nil }
            throw AuthFlowError(.cancelled, "the refresh was cancelled before its token request")
        } catch {
            state.withLock { $0.refreshTask = nil }
            throw error
        }
    }

    /// Refreshes under the store's lock, after reading the store again: when
    /// the stored access token is no longer the one this refresh started
    /// from, someone else refreshed while this one waited, and their result
    /// is used as it is (not judged against the leeway again), unless it has
    /// expired already or is the token being rejected.
    ///
    /// Credentials refreshed here whose save failed (``PendingSave``) are
    /// newer than the store as long as the store still holds what they
    /// replaced: they are the base then, so the refresh token they replaced
    /// is never sent again. A failed save after the refresh keeps the new
    /// credentials and hands the error back beside them.
    private nonisolated func refreshUnderLock(from current: OAuthCredentials, rejected: String?) async throws
        -> (credentials: OAuthCredentials, pendingSave: PendingSave?)
    {
        let client = client
        let store = store
        let now = now
        let pending = state.withLock { $0.pendingSave }
        return try await exclusively {
            guard let record = try await store.load() else {
                throw SessionEnded(
                    reason: .user,
                    error: AuthFlowError(
                        .reauthenticationRequired, "the session was signed out",
                        recovery: "Sign in again.", remedy: .signInAgain))
            }
            let stored = record.credentials
            let pendingIsNewer = pending.map { constantTimeEquals($0.storedAccessToken, stored.accessToken) } ?? false
            let base = pendingIsNewer ? pending?.credentials ?? stored : stored
            if base.accessToken != current.accessToken,
                !(rejected.map { constantTimeEquals($0, base.accessToken) } ?? false),
                base.expiresAt.map({ $0 > now() }) ?? true
            {
                client.logger.debug("using credentials refreshed elsewhere")
                return (base, nil)
            }
            guard base.token.refreshToken != nil else {
                client.logger.info("the access token expired and there is no refresh token; the session has ended")
                try await store.delete()
                throw SessionEnded(reason: .noRefreshToken, error: .noRefreshToken)
            }
            try await store.refreshWillStart()
            let refreshed = try await AuthSession.refreshWithRetry(client: client, store: store) { try await client.refresh(base) }
            do {
                try await store.save(record.refreshed(to: refreshed, client: client))
                return (refreshed, nil)
            } catch {
                client.logger.info("the refreshed credentials could not be saved; keeping them and saving again on next use")
                let failure =
                    error as? AuthFlowError
                    ?? AuthFlowError(
                        .storage, "the refreshed credentials could not be saved",
                        underlyingError: error)
                return (refreshed, PendingSave(credentials: refreshed, storedAccessToken: stored.accessToken, error: failure))
            }
        }
    }

    /// Saves credentials that a refresh could not save (see
    /// ``SessionChange/notSaved(_:)``), if there are any: what every use of
    /// the session tries first, and what an app calls when the device's
    /// protected data becomes available again. Nothing is written when the
    /// store has changed meanwhile (another process refreshed, or signed out).
    ///
    /// - Throws: the store's error; the credentials stay held and are tried again.
    public func savePendingCredentials() async throws {
        guard let pending = state.withLock({ $0.pendingSave }) else { return }
        let client = client
        let store = store
        try await exclusively {
            guard let stored = try await store.load(),
                constantTimeEquals(stored.credentials.accessToken, pending.storedAccessToken)
            else { return }
            try await store.save(stored.refreshed(to: pending.credentials, client: client))
        }
        state.withLock { fields in
            guard let current = fields.pendingSave, constantTimeEquals(current.credentials.accessToken, pending.credentials.accessToken)
            else { return }
            fields.pendingSave = nil
            fields.ready = true
        }
        emit(.saved)
    }

    /// Runs `refresh` (a refresh grant), retrying once after a transient
    /// failure; `invalid_grant` ends the session (the store is emptied).
    static func refreshWithRetry<Refreshed: Sendable>(
        client: OAuthClient, store: any CredentialStore, _ refresh: @escaping @Sendable () async throws -> Refreshed
    ) async throws -> Refreshed {
        var attempt = 0
        while true {
            attempt += 1
            do {
                // Not cancelled with the refresh: a request on the wire may
                // already have rotated the refresh token at the provider.
                return try await Task { try await refresh() }.value
            } catch let error as AuthFlowError {
                if error.category == .oauthError && error.oauth?.error == "invalid_grant" {
                    client.logger.info("refresh token refused; the session has ended")
                    try await store.delete()
                    throw SessionEnded(
                        reason: .refreshTokenRefused,
                        error: AuthFlowError(
                            .reauthenticationRequired, "the provider refused the refresh token (invalid_grant): it expired or was revoked",
                            oauth: error.oauth, recovery: "Sign in again.", remedy: .signInAgain))
                }
                guard let transient = transientFailure(error) else { throw error }
                if attempt >= 2 { throw transient }
                if Task.isCancelled { throw AuthFlowError(.cancelled, "the refresh was cancelled before its retry") }
                client.logger.debug("refresh failed transiently; retrying once", metadata: ["category": "\(error.category.rawValue)"])
            }
        }
    }

    /// Network failures, timeouts and server failures (5xx), as the error to
    /// report after the retry; nil for everything else.
    static func transientFailure(_ error: AuthFlowError) -> AuthFlowError? {
        switch error.category {
        case .network, .timeout: return error
        case .oauthError where ["server_error", "temporarily_unavailable"].contains(error.oauth?.error ?? ""):
            return AuthFlowError(
                .network, "the token endpoint failed: \(error.oauth?.errorDescription ?? error.oauth?.error ?? "server error")")
        default: return nil
        }
    }

    /// Whether `credentials` must be refreshed before use.
    static func needsRefresh(_ credentials: OAuthCredentials, demand: Demand, leeway: TimeInterval, now: Date) -> Bool {
        if let rejected = demand.rejected, constantTimeEquals(rejected, credentials.accessToken) { return true }
        return TokenValidity.needsRefresh(credentials, minimumValidity: demand.minimumValidity, leeway: leeway, now: now)
    }
}

/// Thrown inside a refresh when the session has ended, with the reason for
/// ``SessionChange/signedOut(_:)``; callers see ``error``.
struct SessionEnded: Error {
    let reason: SignOutReason
    let error: AuthFlowError
}

/// Credentials a refresh could not save: held until a save succeeds, and the
/// base of the next refresh while the store still holds what they replaced.
struct PendingSave: Sendable {
    let credentials: OAuthCredentials
    /// The access token of the record still in the store.
    let storedAccessToken: String
    /// Why the save failed.
    let error: AuthFlowError
}
