public import Foundation
public import Logging

/// A signed-in session: owns the credentials, hands out fresh access tokens,
/// and refreshes them exactly once no matter how many callers ask at the
/// same time.
///
/// ```swift
/// let session = try await AuthSession.start(client: client, credentials: credentials, store: store)
/// let token = try await session.freshAccessToken()
/// let response = try await session.send(HTTPTransportRequest(method: "GET", url: api))
/// // at the next launch, offline:
/// let restored = try await AuthSession.restore(from: store)
/// ```
///
/// - ``start(client:credentials:store:leeway:)`` writes the sign-in to the
///   store before it returns; ``restore(from:authentication:dpopKey:transport:logger:leeway:)``
///   needs no network.
/// - The rotated refresh token is saved to the store before any caller sees
///   the new access token.
/// - A token is refreshed when it expires within the leeway, which is never
///   more than half the token's lifetime. A token without an expiry is used
///   until a resource server refuses it (``send(_:)``) or ``refreshNow()``.
/// - The refresh runs under the store's exclusive lock, and the store is
///   read again first: when another process (the CLI's `authflow token` run
///   in parallel) or caller refreshed while this one waited, its credentials
///   are used, not refreshed again.
/// - `invalid_grant`, or an expired token without a refresh token, ends the
///   session: the credentials are deleted and
///   ``AuthFlowError/Category/reauthenticationRequired`` is thrown. Network
///   failures and 5xx keep the credentials and are retried once with the
///   same refresh token, then reported as `network` or `timeout`.
/// - ``signOut(postLogoutRedirectURI:)`` wins over a refresh in flight.
public actor AuthSession {
    /// The client the session refreshes with.
    public nonisolated let client: OAuthClient
    /// Where the credentials are kept.
    public nonisolated let store: any CredentialStore
    /// A token that expires within this many seconds (at most half its
    /// lifetime) is refreshed first.
    public nonisolated let leeway: TimeInterval
    private nonisolated let now: @Sendable () -> Date
    /// The credentials held and the refresh in flight. They sit behind a lock,
    /// not in actor state, so that callers with valid credentials and callers
    /// waiting for a refresh never queue on the actor (see ``freshCredentials(rejecting:)``).
    private nonisolated let state: LockedValue<SessionFields>
    /// The continuations of ``changes``.
    private nonisolated let observers = LockedValue(Observers())
    private var loaded = false
    private var unsaved: OAuthCredentials?
    private var initialSave: Task<Void, any Error>?

    /// Creates a session. Given `credentials` are written to the store on
    /// first use (use ``start(client:credentials:store:leeway:)`` to have
    /// them written before going on); without them, the store is read on
    /// first use.
    public init(
        client: OAuthClient, store: any CredentialStore = MemoryCredentialStore(), credentials: OAuthCredentials? = nil,
        leeway: TimeInterval = 60, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.client = client
        self.store = store
        state = LockedValue(SessionFields(credentials: credentials.map(HeldCredentials.init)))
        self.leeway = leeway
        self.now = now
        loaded = credentials != nil
        unsaved = credentials
    }

    /// A session over credentials already in the store.
    private init(
        client: OAuthClient, store: any CredentialStore, stored credentials: OAuthCredentials, leeway: TimeInterval,
        now: @escaping @Sendable () -> Date
    ) {
        self.client = client
        self.store = store
        state = LockedValue(SessionFields(credentials: HeldCredentials(credentials), ready: true))
        self.leeway = leeway
        self.now = now
        loaded = true
    }

    /// Starts a session from fresh credentials (a sign-in, a device grant, a
    /// backend exchange): they are written to `store`, under its lock, before
    /// this returns, so a process killed right afterwards stays signed in.
    public static func start(
        client: OAuthClient, credentials: OAuthCredentials, store: any CredentialStore,
        leeway: TimeInterval = 60
    ) async throws -> AuthSession {
        let record = SessionRecord(credentials: credentials, client: client)
        try await store.withExclusiveAccess { try await store.save(record) }
        let session = AuthSession(client: client, store: store, stored: credentials, leeway: leeway, now: { Date() })
        session.emit(.signedIn)
        return session
    }

    /// A session over `credentials` just read from `store` (by a caller that
    /// reads the store itself, like a command-line tool): nothing is written.
    public static func resume(
        client: OAuthClient, store: any CredentialStore, credentials: OAuthCredentials,
        leeway: TimeInterval = 60
    ) -> AuthSession {
        AuthSession(client: client, store: store, stored: credentials, leeway: leeway, now: { Date() })
    }

    /// Restores the session kept in `store`, without the network: the client
    /// is built from the stored provider metadata and client id; pass the
    /// client's secret as `authentication` when it has one (it is never
    /// stored in the record). Nil when nothing is stored.
    ///
    /// A record stored in the first format (credentials only) is completed by
    /// discovery once, and saved again.
    ///
    /// A DPoP-bound session is bound again to the software key the record
    /// keeps; for a key the record cannot hold (a hardware
    /// ``DPoPSigningKey``), pass it as `dpopKey`.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when `authentication`
    ///   is not the stored method.
    public static func restore(
        from store: any CredentialStore, authentication: ClientAuthentication = .none,
        dpopKey: (any DPoPSigningKey)? = nil, transport: any HTTPTransport = URLSessionTransport(),
        logger: Logger = Logger(label: "AuthFlow"),
        leeway: TimeInterval = 60
    ) async throws -> AuthSession? {
        guard let record = try await store.load() else { return nil }
        return try await restore(
            record, from: store, authentication: authentication, dpopKey: dpopKey, transport: transport,
            logger: logger, leeway: leeway)
    }

    /// ``restore(from:authentication:dpopKey:transport:logger:leeway:)`` with
    /// the record already loaded from `store`.
    package static func restore(
        _ record: SessionRecord, from store: any CredentialStore, authentication: ClientAuthentication = .none,
        dpopKey: (any DPoPSigningKey)? = nil, transport: any HTTPTransport, logger: Logger = Logger(label: "AuthFlow"),
        leeway: TimeInterval = 60
    ) async throws -> AuthSession {
        var record = record
        if record.hasMetadata {
            guard record.clientAuthenticationMethod == authentication.method else {
                throw AuthFlowError(
                    .configuration,
                    "the stored session authenticates with \(record.clientAuthenticationMethod), not \(authentication.method)",
                    recovery: "Pass the ClientAuthentication the session signed in with.")
            }
        } else {
            guard let issuer = record.credentials.issuer.flatMap(URL.init(string:)) else {
                throw AuthFlowError(
                    .reauthenticationRequired, "the stored session predates provider metadata and names no issuer",
                    recovery: "Sign in again.")
            }
            record = SessionRecord(
                credentials: record.credentials,
                metadata: try await ProviderMetadata.discover(issuer: issuer, transport: transport, logger: logger),
                clientAuthenticationMethod: authentication.method)
            try await store.save(record)
        }
        var client = try OAuthClient(
            metadata: record.metadata, clientID: record.clientID, authentication: authentication,
            transport: transport, logger: logger)
        client.dpop = (record.dpopKey ?? dpopKey).map { DPoPBinding(key: $0) }
        return AuthSession(client: client, store: store, stored: record.credentials, leeway: leeway, now: { Date() })
    }

    /// The credentials held now (possibly expired), or nil when signed out.
    public var currentCredentials: OAuthCredentials? {
        get async throws {
            try await loadIfNeeded()
            return state.withLock { $0.credentials?.credentials }
        }
    }

    /// A valid access token, refreshed first when it expires within the
    /// leeway — or, with `minimumValidity`, within that many seconds.
    public nonisolated func freshAccessToken(minimumValidity: TimeInterval? = nil) async throws -> String {
        try await held(Demand(rejected: nil, minimumValidity: minimumValidity)).accessToken
    }

    /// Runs `body` with a valid access token.
    public nonisolated func withFreshAccessToken<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        try await body(freshAccessToken())
    }

    /// Refreshes now, whatever the expiry says (unless a refresh is already
    /// in flight or another process refreshed meanwhile: then that result).
    public nonisolated func refreshNow() async throws -> OAuthCredentials {
        if !state.withLock({ $0.ready }) { try await loadIfNeeded() }
        guard let current = state.withLock({ $0.credentials?.credentials.accessToken }) else {
            throw AuthFlowError(.reauthenticationRequired, "not signed in")
        }
        return try await held(Demand(rejected: current, minimumValidity: nil)).credentials
    }

    /// Valid credentials. With `rejecting`, credentials whose access token
    /// equals it (a resource server refused it) are refreshed even if not expired.
    ///
    /// Only the first call of a session created with ``init(client:store:credentials:leeway:now:)``
    /// runs on the actor (to write the given credentials to the store, or
    /// read them from it). After that, deciding between the held credentials
    /// and the refresh in flight (started by this call when none is) is one
    /// short critical section, and waiting for that refresh happens off the
    /// actor: when it finishes, every waiter resumes on its own executor
    /// instead of queueing to hop back onto the session one after another.
    /// The refresh stores its outcome in the session before it completes, so
    /// a caller arriving afterwards sees it.
    public nonisolated func freshCredentials(rejecting rejected: String? = nil) async throws -> OAuthCredentials {
        try await held(Demand(rejected: rejected, minimumValidity: nil)).credentials
    }

    /// Whether an access token is held that stays valid for at least
    /// `seconds` more (a token without an expiry counts as valid). No I/O.
    public nonisolated func hasAccessToken(validFor seconds: TimeInterval) -> Bool {
        let now = now()
        return state.withLock { fields in
            guard !fields.signedOut, let held = fields.credentials?.credentials else { return false }
            guard let expiry = held.expiresAt else { return true }
            return expiry.timeIntervalSince(now) > seconds
        }
    }

    /// Whether the session can get a new access token without the user: it
    /// holds a refresh token and has not ended. No I/O.
    public nonisolated var canRefresh: Bool {
        state.withLock { !$0.signedOut && $0.credentials?.credentials.token.refreshToken != nil }
    }

    /// Later changes of this session (each access: a new stream that reports
    /// the changes after it was created). For a SwiftUI model:
    /// `for await change in session.changes { … }`.
    public nonisolated var changes: AsyncStream<SessionChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionChange.self)
        let observers = observers
        let id = observers.withLock { list in
            list.next += 1
            list.continuations[list.next] = continuation
            return list.next
        }
        continuation.onTermination = { _ in observers.withLock { _ = $0.continuations.removeValue(forKey: id) } }
        return stream
    }

    private nonisolated func emit(_ change: SessionChange) {
        for continuation in observers.withLock({ Array($0.continuations.values) }) { continuation.yield(change) }
    }

    /// ``freshCredentials(rejecting:)`` as the shared reference the session
    /// holds. Waiters pass one reference through their frames instead of a
    /// copy of every field: with a copy, each of 10 000 waiting tasks
    /// outgrew its task's first allocator slab and allocated another.
    private nonisolated func held(_ demand: Demand) async throws -> HeldCredentials {
        if !state.withLock({ $0.ready }) { try await loadIfNeeded() }
        switch try lookUp(demand) {
        case .valid(let credentials): return credentials
        case .refreshing(let refresh): return try await refresh.value
        }
    }

    /// Decides, in one critical section, between the credentials held and
    /// the refresh in flight, starting the refresh when there is none.
    /// Synchronous and kept out of ``held(_:)`` so that its temporaries stay
    /// on the thread's stack, not in the waiter's async frame.
    @inline(never)
    private nonisolated func lookUp(_ demand: Demand) throws(AuthFlowError) -> Lookup {
        let now = now()
        return try state.withLock { fields throws(AuthFlowError) -> Lookup in
            guard !fields.signedOut, let current = fields.credentials else {
                throw AuthFlowError(.reauthenticationRequired, "not signed in", recovery: "Sign in again.")
            }
            if !AuthSession.needsRefresh(current.credentials, demand: demand, leeway: leeway, now: now) { return .valid(current) }
            if let refreshTask = fields.refreshTask { return .refreshing(refreshTask) }
            // Started and published in one critical section: concurrent
            // callers share this refresh. The task cannot record its outcome
            // before the lock is released, so it always finds itself here.
            let task = Task { try await self.refresh(from: current.credentials, rejected: demand.rejected) }
            fields.refreshTask = task
            return .refreshing(task)
        }
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

    /// What ``freshCredentials(rejecting:)`` asks of the credentials.
    struct Demand {
        /// An access token a resource server refused (or the current one, to force a refresh).
        var rejected: String?
        /// Seconds the token must stay valid, instead of the leeway.
        var minimumValidity: TimeInterval?
    }

    /// What ``freshCredentials(rejecting:)`` waits for.
    private enum Lookup {
        /// The credentials held are good enough.
        case valid(HeldCredentials)
        /// A refresh is in flight (possibly just started); its value is the answer.
        case refreshing(Task<HeldCredentials, any Error>)
    }

    /// The body of the refresh task: refreshes, then, before the task's value
    /// reaches any waiter, stores the outcome (new credentials, or none after
    /// the session ended) and clears the refresh in flight, so later callers
    /// see the new credentials.
    private nonisolated func refresh(from current: OAuthCredentials, rejected: String?) async throws -> HeldCredentials {
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

    /// Sends `request` with `Authorization: <type> <token>` (header only, never
    /// the query). On a 401 whose `WWW-Authenticate` says `invalid_token`, it
    /// refreshes once and retries once.
    public nonisolated func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        if client.dpop != nil { return try await sendWithDPoP(request) }
        let first = try await freshCredentials()
        let response = try await client.transport.send(AuthSession.authorized(request, with: first))
        guard response.status == 401, BearerChallenge(response)?.error == "invalid_token" else {
            return response
        }
        client.logger.debug("resource server refused the access token; refreshing once")
        let second = try await freshCredentials(rejecting: first.accessToken)
        return try await client.transport.send(AuthSession.authorized(request, with: second))
    }

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
        let inFlight = state.withLock { fields in
            fields.signedOut = true
            return fields.refreshTask
        }
        if let inFlight { _ = try? await inFlight.value }
        if let initialSave { _ = try? await initialSave.value }
        unsaved = nil
        initialSave = nil
        let (held, heldIsNewest) = state.withLock { fields in
            defer {
                fields.credentials = nil
                fields.pendingSave = nil
            }
            return (fields.credentials?.credentials, fields.pendingSave != nil)
        }
        let store = store
        let stored = try await store.withExclusiveAccess { () async throws -> OAuthCredentials? in
            let latest = try? await store.load()
            try await store.delete()
            return latest?.credentials
        }
        loaded = true
        state.withLock { $0.ready = true }
        emit(.signedOut(.user))
        guard let latest = (heldIsNewest ? held : nil) ?? stored ?? held else {
            return SignOutResult(endSessionURL: nil, revocationFailures: [])
        }
        let endSession = try? client.endSessionURL(
            idTokenHint: latest.token.idToken ?? held?.token.idToken,
            postLogoutRedirectURI: postLogoutRedirectURI,
            state: postLogoutRedirectURI == nil ? nil : SecureRandom.token())
        var failures: [AuthFlowError] = []
        if client.metadata.revocationEndpoint != nil {
            failures = await client.revokeEach(latest)
            if let held, held.accessToken != latest.accessToken {
                failures += await client.revokeEach(
                    OAuthCredentials(
                        issuer: held.issuer, clientID: held.clientID,
                        token: held.token.withoutRefreshToken, idToken: nil))
            }
        }
        return SignOutResult(endSessionURL: endSession, revocationFailures: failures)
    }

    /// Writes credentials given at init to the store, or reads the store,
    /// once; then marks the session ready for the lock-only path.
    private func loadIfNeeded() async throws {
        if state.withLock({ $0.pendingSave != nil }) { try? await savePendingCredentials() }
        if let unsaved {
            // One save, which every concurrent first caller awaits: none may go on
            // to refresh (and read the store) before the credentials are in it.
            self.unsaved = nil
            let store = store
            let record = SessionRecord(credentials: unsaved, client: client)
            initialSave = Task { try await store.save(record) }
        }
        if let initialSave { try await initialSave.value }
        if !loaded {
            let stored = try await store.load()
            // Another caller may have loaded (and refreshed) while this one waited.
            if !loaded {
                loaded = true
                state.withLock { fields in
                    if !fields.signedOut { fields.credentials = stored.map { HeldCredentials($0.credentials) } }
                }
            }
        }
        if unsaved == nil { state.withLock { $0.ready = $0.pendingSave == nil } }
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
        return try await store.withExclusiveAccess {
            guard let stored = try await store.load()?.credentials else {
                throw SessionEnded(
                    reason: .user,
                    error: AuthFlowError(
                        .reauthenticationRequired, "the session was signed out",
                        recovery: "Sign in again."))
            }
            let pendingIsNewer = pending.map { constantTimeEquals($0.storedAccessToken, stored.accessToken) } ?? false
            let base = pendingIsNewer ? pending?.credentials ?? stored : stored
            if base.accessToken != current.accessToken,
                !(rejected.map { constantTimeEquals($0, base.accessToken) } ?? false),
                base.expiresAt.map { $0 > now() } ?? true
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
            let refreshed = try await AuthSession.refreshWithRetry(base, client: client, store: store)
            do {
                try await store.save(SessionRecord(credentials: refreshed, client: client))
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
        try await store.withExclusiveAccess {
            guard let stored = try await store.load()?.credentials,
                constantTimeEquals(stored.accessToken, pending.storedAccessToken)
            else { return }
            try await store.save(SessionRecord(credentials: pending.credentials, client: client))
        }
        state.withLock { fields in
            guard let current = fields.pendingSave, constantTimeEquals(current.credentials.accessToken, pending.credentials.accessToken)
            else { return }
            fields.pendingSave = nil
            fields.ready = true
        }
        emit(.saved)
    }

    static func refreshWithRetry(_ base: OAuthCredentials, client: OAuthClient, store: any CredentialStore) async throws -> OAuthCredentials
    {
        var attempt = 0
        while true {
            attempt += 1
            do {
                // Not cancelled with the refresh: a request on the wire may
                // already have rotated the refresh token at the provider.
                return try await Task { try await client.refresh(base) }.value
            } catch let error as AuthFlowError {
                if error.category == .oauthError && error.oauth?.error == "invalid_grant" {
                    client.logger.info("refresh token refused; the session has ended")
                    try await store.delete()
                    throw SessionEnded(
                        reason: .refreshTokenRefused,
                        error: AuthFlowError(
                            .reauthenticationRequired, "the provider refused the refresh token (invalid_grant): it expired or was revoked",
                            oauth: error.oauth, recovery: "Sign in again."))
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

    static func authorized(_ request: HTTPTransportRequest, with credentials: OAuthCredentials) -> HTTPTransportRequest {
        var request = request
        request.headers.removeAll { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }
        request.headers.append((name: "Authorization", value: "\(credentials.token.tokenType) \(credentials.accessToken)"))
        return request
    }
}

/// Thrown inside a refresh when the session has ended, with the reason for
/// ``SessionChange/signedOut(_:)``; callers see ``error``.
struct SessionEnded: Error {
    let reason: SignOutReason
    let error: AuthFlowError
}

/// The part of an ``AuthSession``'s state that callers read without going
/// through the actor, guarded by a lock (critical sections never suspend).
private struct SessionFields {
    /// The credentials held, or nil when signed out.
    var credentials: HeldCredentials?
    /// The refresh in flight, if any.
    var refreshTask: Task<HeldCredentials, any Error>?
    /// True once the store has been written or read, so ``credentials`` is authoritative.
    var ready = false
    /// True once the session ended (sign-out, or the provider ended it): no
    /// refresh starts and no result is kept.
    var signedOut = false
    /// Credentials refreshed here that the store has not taken yet.
    var pendingSave: PendingSave?
}

/// Credentials a refresh could not save: held until a save succeeds, and the
/// base of the next refresh while the store still holds what they replaced.
private struct PendingSave: Sendable {
    let credentials: OAuthCredentials
    /// The access token of the record still in the store.
    let storedAccessToken: String
    /// Why the save failed.
    let error: AuthFlowError
}

/// The subscribers of ``AuthSession/changes``.
private struct Observers {
    var next = 0
    var continuations: [Int: AsyncStream<SessionChange>.Continuation] = [:]
}

/// Credentials as an ``AuthSession`` holds and hands them to its callers:
/// immutable, shared by reference.
private final class HeldCredentials: Sendable {
    let credentials: OAuthCredentials
    init(_ credentials: OAuthCredentials) { self.credentials = credentials }
    /// Read in a synchronous call, so that no copy of the credentials lands in the caller's async frame.
    var accessToken: String {
        @inline(never) get { credentials.accessToken }
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
