import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// The body of the refresh task: refreshes, and the new credentials are
    /// held (``hold(_:pendingSave:)``) before the store's lock is released,
    /// so the next holder of the lock (a refresh for another resource) starts
    /// from them; then the refresh in flight is cleared.
    nonisolated func refresh(from current: OAuthCredentials, rejected: String?) async throws -> HeldCredentials {
        do {
            let (refreshed, pendingSave) = try await refreshUnderLock(from: current, rejected: rejected)
            state.withLock { $0.refreshTask = nil }
            emit(.refreshed)
            if let pendingSave { emit(.notSaved(pendingSave.error)) }
            return refreshed
        } catch {
            throw settle(error) { $0.refreshTask = nil }
        }
    }

    /// The error a refresh (of the session's token, or of another
    /// resource's) ends in, after `clear` released what it held in flight:
    /// an ended session (``SessionEnded``, or the store's
    /// `reauthentication_required`) drops the credentials and every
    /// resource's token and says so in ``changes``; a cancellation before the
    /// token request is `cancelled`.
    nonisolated func settle(_ error: any Error, clearing clear: (inout SessionFields) -> Void) -> any Error {
        func end(_ reason: SignOutReason) {
            state.withLock { fields in
                fields.credentials = nil
                fields.signedOut = true
                fields.resourceTokens = [:]
                clear(&fields)
            }
            emit(.signedOut(reason))
        }
        switch error {
        case let ended as SessionEnded:
            end(ended.reason)
            return ended.error
        case let ended as AuthFlowError where ended.category == .reauthenticationRequired:
            // The store ended the session under its lock (a shared store that
            // found a refresh whose reply was lost): no refresh brings it back.
            end(.refreshTokenRefused)
            return ended
        case is CancellationError:
            state.withLock(clear)
            return AuthFlowError(.cancelled, "the refresh was cancelled before its token request")
        default:
            state.withLock(clear)
            return error
        }
    }

    /// Makes `credentials` the session's, with `pendingSave` when the store
    /// did not take them (none: the store holds them, and an older pending
    /// save is spent). Called under the store's lock; nothing is kept once
    /// the session ended, but the credentials are still handed to the
    /// callers that waited for them.
    nonisolated func hold(_ credentials: OAuthCredentials, pendingSave: PendingSave?) -> (HeldCredentials, PendingSave?) {
        let held = HeldCredentials(credentials)
        state.withLock { fields in
            guard !fields.signedOut else { return }
            fields.credentials = held
            fields.pendingSave = pendingSave
            if pendingSave != nil { fields.ready = false }
        }
        return (held, pendingSave)
    }

    /// What a refresh starts from, read under the store's lock: the stored
    /// credentials, or the ones a refresh here could not save when the store
    /// still holds what they replaced (so the refresh token they replaced is
    /// never sent again).
    nonisolated func newest(_ stored: OAuthCredentials) -> (credentials: OAuthCredentials, pending: PendingSave?) {
        guard let pending = state.withLock({ $0.pendingSave }), pending.replaces(stored) else { return (stored, nil) }
        return (pending.credentials, pending)
    }

    /// Refreshes under the store's lock, after reading the store again: when
    /// the stored access token is no longer the one this refresh started
    /// from, someone else refreshed while this one waited, and their result
    /// is used as it is (not judged against the leeway again), unless it has
    /// expired already or is the token being rejected.
    ///
    /// A failed save after the refresh keeps the new credentials and hands
    /// the error back beside them (``PendingSave``).
    private nonisolated func refreshUnderLock(from current: OAuthCredentials, rejected: String?) async throws
        -> (HeldCredentials, PendingSave?)
    {
        let client = client
        let store = store
        let now = now
        return try await exclusively {
            guard let record = try await store.load() else { throw SessionEnded.signedOutMeanwhile }
            let (base, pending) = self.newest(record.credentials)
            if base.accessToken != current.accessToken,
                !(rejected.map { constantTimeEquals($0, base.accessToken) } ?? false),
                base.expiresAt.map({ $0 > now() }) ?? true
            {
                client.logger.debug("using credentials refreshed elsewhere")
                return self.hold(base, pendingSave: pending)
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
                return self.hold(refreshed, pendingSave: nil)
            } catch {
                return self.hold(
                    refreshed, pendingSave: PendingSave(refreshed, replacing: record.credentials, error: error, client: client))
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
        guard state.withLock({ $0.pendingSave != nil }) else { return }
        let client = client
        let store = store
        let saved = try await exclusively { () async throws -> Bool in
            guard let pending = self.state.withLock({ $0.pendingSave }) else { return false }
            if let stored = try await store.load(), pending.replaces(stored.credentials) {
                try await store.save(stored.refreshed(to: pending.credentials, client: client))
            }
            self.state.withLock { fields in
                guard let current = fields.pendingSave, current.credentials.hasSameTokens(as: pending.credentials) else { return }
                fields.pendingSave = nil
                fields.ready = true
            }
            return true
        }
        if saved { emit(.saved) }
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

    /// The store, read again under its lock, holds no session: signed out
    /// (here or in another process) while a refresh waited.
    static var signedOutMeanwhile: SessionEnded {
        SessionEnded(
            reason: .user,
            error: AuthFlowError(.reauthenticationRequired, "the session was signed out", recovery: "Sign in again.", remedy: .signInAgain))
    }
}

/// Credentials a refresh could not save: held until a save succeeds, and the
/// base of the next refresh while the store still holds what they replaced.
struct PendingSave: Sendable {
    let credentials: OAuthCredentials
    /// The access and refresh tokens of the record still in the store.
    private let storedAccessToken: String
    private let storedRefreshToken: String?
    /// Why the save failed.
    let error: AuthFlowError

    /// `credentials`, refreshed from `stored`, that the store refused with `error`.
    init(_ credentials: OAuthCredentials, replacing stored: OAuthCredentials, error: any Error, client: OAuthClient) {
        client.logger.info("the refreshed credentials could not be saved; keeping them and saving again on next use")
        self.credentials = credentials
        storedAccessToken = stored.accessToken
        storedRefreshToken = stored.token.refreshToken
        self.error =
            error as? AuthFlowError ?? AuthFlowError(.storage, "the refreshed credentials could not be saved", underlyingError: error)
    }

    /// Whether `stored` is still the record these credentials replaced: the
    /// same access token and the same refresh token (a refresh for another
    /// resource rotates the refresh token and keeps the access token).
    func replaces(_ stored: OAuthCredentials) -> Bool {
        stored.hasSameTokens(asAccessToken: storedAccessToken, refreshToken: storedRefreshToken)
    }
}

extension OAuthCredentials {
    /// Whether `other` holds the same access and refresh tokens (constant time).
    func hasSameTokens(as other: OAuthCredentials) -> Bool {
        hasSameTokens(asAccessToken: other.accessToken, refreshToken: other.token.refreshToken)
    }

    func hasSameTokens(asAccessToken accessToken: String, refreshToken: String?) -> Bool {
        let sameAccess = constantTimeEquals(self.accessToken, accessToken)
        let sameRefresh =
            switch (token.refreshToken, refreshToken) {
            case (nil, nil): true
            case (let mine?, let theirs?): constantTimeEquals(mine, theirs)
            default: false
            }
        return sameAccess && sameRefresh
    }
}
