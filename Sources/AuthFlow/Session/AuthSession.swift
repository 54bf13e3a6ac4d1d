#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
    nonisolated let now: @Sendable () -> Date
    /// The credentials held and the refresh in flight. They sit behind a lock,
    /// not in actor state, so that callers with valid credentials and callers
    /// waiting for a refresh never queue on the actor (see ``freshCredentials(rejecting:)``).
    nonisolated let state: LockedValue<SessionFields>
    /// The continuations of ``changes``.
    private nonisolated let observers = LockedValue(Observers())
    /// Taken with the store's lock (``exclusively(_:)``).
    private nonisolated let gate = SerialGate()
    var loaded = false
    var unsaved: OAuthCredentials?
    var initialSave: Task<Void, any Error>?

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
    init(
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

    /// Runs `body` under the store's exclusive lock, and one at a time
    /// among this session's holders of it: the refresh of the session's own
    /// token and those for other resources spend one refresh token, and a
    /// store that lives in one process has no lock of its own.
    nonisolated func exclusively<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let store = store
        return try await gate.run { try await store.withExclusiveAccess(body) }
    }

    nonisolated func emit(_ change: SessionChange) {
        for continuation in observers.withLock({ Array($0.continuations.values) }) { continuation.yield(change) }
    }

    /// ``freshCredentials(rejecting:)`` as the shared reference the session
    /// holds. Waiters pass one reference through their frames instead of a
    /// copy of every field: with a copy, each of 10 000 waiting tasks
    /// outgrew its task's first allocator slab and allocated another.
    nonisolated func held(_ demand: Demand) async throws -> HeldCredentials {
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
                throw AuthFlowError.notSignedIn
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

    /// Writes credentials given at init to the store, or reads the store,
    /// once; then marks the session ready for the lock-only path.
    func loadIfNeeded() async throws {
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
                    if !fields.signedOut, let stored {
                        fields.credentials = HeldCredentials(stored.credentials)
                        fields.holdResourceTokens(of: stored)
                    }
                }
            }
        }
        if unsaved == nil { state.withLock { $0.ready = $0.pendingSave == nil } }
    }

}

/// The part of an ``AuthSession``'s state that callers read without going
/// through the actor, guarded by a lock (critical sections never suspend).
struct SessionFields {
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
    /// Tokens for other resources, by resource (``AuthSession/resourceToken(for:using:minimumValidity:rejecting:)``).
    var resourceTokens: [ResourceIdentifier: ResourceToken] = [:]
    /// The request in flight for each resource.
    var resourceTasks: [ResourceIdentifier: Task<ResourceToken, any Error>] = [:]

    /// Holds the tokens for other resources that `record` keeps.
    mutating func holdResourceTokens(of record: SessionRecord) {
        for token in record.resourceTokens { resourceTokens[token.resource] = token }
    }
}

/// The subscribers of ``AuthSession/changes``.
private struct Observers {
    var next = 0
    var continuations: [Int: AsyncStream<SessionChange>.Continuation] = [:]
}

/// Credentials as an ``AuthSession`` holds and hands them to its callers:
/// immutable, shared by reference.
final class HeldCredentials: Sendable {
    let credentials: OAuthCredentials
    init(_ credentials: OAuthCredentials) { self.credentials = credentials }
    /// Read in a synchronous call, so that no copy of the credentials lands in the caller's async frame.
    var accessToken: String {
        @inline(never) get { credentials.accessToken }
    }
}
