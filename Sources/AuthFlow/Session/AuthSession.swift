import Foundation
import Logging

/// A signed-in session: owns the credentials, hands out fresh access tokens,
/// and refreshes them exactly once no matter how many callers ask at the
/// same time.
///
/// ```swift
/// let session = AuthSession(client: client, store: FileCredentialStore(url: file), credentials: credentials)
/// let token = try await session.freshAccessToken()
/// let response = try await session.send(HTTPRequest(method: "GET", url: api))
/// ```
///
/// - The rotated refresh token is saved to the store before any caller sees
///   the new access token.
/// - The refresh runs under the store's exclusive lock, and the store is
///   read again first, so a refresh already done by another process (the
///   CLI's `authflow token` run in parallel) is reused, not repeated.
/// - `invalid_grant` ends the session: the credentials are deleted and
///   ``AuthFlowError/Category/reauthenticationRequired`` is thrown. Network
///   failures and 5xx keep the credentials and are retried once with the
///   same refresh token, then reported as `network` or `timeout`.
public actor AuthSession {
    /// The client the session refreshes with.
    public nonisolated let client: OAuthClient
    /// Where the credentials are kept.
    public nonisolated let store: any CredentialStore
    /// A token that expires within this many seconds is refreshed first.
    public nonisolated let leeway: TimeInterval
    private let now: @Sendable () -> Date
    /// The credentials held and the refresh in flight. They sit behind a lock,
    /// not in actor state, so that callers with valid credentials and callers
    /// waiting for a refresh never queue on the actor (see ``freshCredentials(rejecting:)``).
    private nonisolated let state: LockedValue<SessionFields>
    private var loaded = false
    private var unsaved: Credentials?
    private var initialSave: Task<Void, any Error>?

    /// Creates a session. Given `credentials` are written to the store on
    /// first use; without them, the store is read on first use.
    public init(client: OAuthClient, store: any CredentialStore = MemoryCredentialStore(), credentials: Credentials? = nil,
                leeway: TimeInterval = 60, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.store = store
        state = LockedValue(SessionFields(credentials: credentials.map(HeldCredentials.init)))
        self.leeway = leeway
        self.now = now
        loaded = credentials != nil
        unsaved = credentials
    }

    /// The credentials held now (possibly expired), or nil when signed out.
    public var currentCredentials: Credentials? {
        get async throws {
            try await loadIfNeeded()
            return state.withLock { $0.credentials?.credentials }
        }
    }

    /// A valid access token, refreshed first when it expires within the leeway.
    public nonisolated func freshAccessToken() async throws -> String {
        try await held(rejecting: nil).accessToken
    }

    /// Runs `body` with a valid access token.
    public nonisolated func withFreshAccessToken<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        try await body(freshAccessToken())
    }

    /// Valid credentials. With `rejecting`, credentials whose access token
    /// equals it (a resource server refused it) are refreshed even if not expired.
    ///
    /// Only the first call of a session runs on the actor (to write the given
    /// credentials to the store, or read them from it). After that, deciding
    /// between the held credentials and the refresh in flight (started by
    /// this call when none is) is one short critical section, and waiting for
    /// that refresh happens off the actor: when it finishes, every waiter
    /// resumes on its own executor instead of queueing to hop back onto the
    /// session one after another. The refresh stores its outcome in the
    /// session before it completes, so a caller arriving afterwards sees it.
    public nonisolated func freshCredentials(rejecting rejected: String? = nil) async throws -> Credentials {
        try await held(rejecting: rejected).credentials
    }

    /// ``freshCredentials(rejecting:)`` as the shared reference the session
    /// holds. Waiters pass one reference through their frames instead of a
    /// copy of every field: with a copy, each of 10 000 waiting tasks
    /// outgrew its task's first allocator slab and allocated another.
    private nonisolated func held(rejecting rejected: String?) async throws -> HeldCredentials {
        if !state.withLock({ $0.ready }) { try await loadIfNeeded() }
        switch try lookUp(rejecting: rejected) {
        case .valid(let credentials): return credentials
        case .refreshing(let refresh): return try await refresh.value
        }
    }

    /// Decides, in one critical section, between the credentials held and
    /// the refresh in flight, starting the refresh when there is none.
    /// Synchronous and kept out of ``held(rejecting:)`` so that its
    /// temporaries stay on the thread's stack, not in the waiter's async frame.
    @inline(never)
    private nonisolated func lookUp(rejecting rejected: String?) throws(AuthFlowError) -> Lookup {
        try state.withLock { fields throws(AuthFlowError) -> Lookup in
            guard let current = fields.credentials else {
                throw AuthFlowError(.reauthenticationRequired, "not signed in")
            }
            if !AuthSession.needsRefresh(current.credentials, rejected: rejected, leeway: leeway, now: now()) { return .valid(current) }
            if let refreshTask = fields.refreshTask { return .refreshing(refreshTask) }
            // Started and published in one critical section: concurrent
            // callers share this refresh. The task cannot record its outcome
            // before the lock is released, so it always finds itself here.
            let task = Task { try await self.refresh(from: current.credentials, rejected: rejected) }
            fields.refreshTask = task
            return .refreshing(task)
        }
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
    /// `reauthentication_required`) and clears the refresh in flight, so
    /// later callers see the new credentials.
    private nonisolated func refresh(from current: Credentials, rejected: String?) async throws -> HeldCredentials {
        do {
            let refreshed = HeldCredentials(try await refreshUnderLock(from: current, rejected: rejected))
            state.withLock { fields in
                fields.credentials = refreshed
                fields.refreshTask = nil
            }
            return refreshed
        } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
            state.withLock { fields in
                fields.credentials = nil
                fields.refreshTask = nil
            }
            throw error
        } catch {
            state.withLock { $0.refreshTask = nil }
            throw error
        }
    }

    /// Sends `request` with `Authorization: <type> <token>` (header only, never
    /// the query). On a 401 whose `WWW-Authenticate` says `invalid_token`, it
    /// refreshes once and retries once.
    public nonisolated func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let first = try await freshCredentials()
        let response = try await client.transport.send(AuthSession.authorized(request, with: first))
        guard response.status == 401, BearerChallenge(response.header("WWW-Authenticate"))?.error == "invalid_token" else {
            return response
        }
        client.logger.debug("resource server refused the access token; refreshing once")
        let second = try await freshCredentials(rejecting: first.accessToken)
        return try await client.transport.send(AuthSession.authorized(request, with: second))
    }

    /// Signs out: revokes the refresh token, then the access token (when the
    /// provider can), deletes the stored credentials, and returns the
    /// provider's end-session URL (RP-initiated logout) to open, if it has one.
    /// Local sign-out happens even when revocation fails; the revocation
    /// error is then rethrown.
    @discardableResult
    public func signOut(postLogoutRedirectURI: URL? = nil) async throws -> URL? {
        try await loadIfNeeded()
        let held = state.withLock { fields in
            defer { fields.credentials = nil }
            return fields.credentials?.credentials
        }
        unsaved = nil
        initialSave = nil
        try await store.delete()
        guard let held else { return nil }
        let endSession = try client.endSessionURL(idTokenHint: held.token.idToken, postLogoutRedirectURI: postLogoutRedirectURI,
                                                  state: postLogoutRedirectURI == nil ? nil : SecureRandom.token())
        if client.metadata.revocationEndpoint != nil {
            try await client.revokeAll(held)
        }
        return endSession
    }

    /// Writes credentials given at init to the store, or reads the store,
    /// once; then marks the session ready for the lock-only path.
    private func loadIfNeeded() async throws {
        if let unsaved {
            // One save, which every concurrent first caller awaits: none may go on
            // to refresh (and read the store) before the credentials are in it.
            self.unsaved = nil
            let store = store
            initialSave = Task { try await store.save(unsaved) }
        }
        if let initialSave { try await initialSave.value }
        if !loaded {
            let stored = try await store.load()
            // Another caller may have loaded (and refreshed) while this one waited.
            if !loaded {
                loaded = true
                state.withLock { $0.credentials = stored.map(HeldCredentials.init) }
            }
        }
        if unsaved == nil { state.withLock { $0.ready = true } }
    }

    private nonisolated func refreshUnderLock(from current: Credentials, rejected: String?) async throws -> Credentials {
        let client = client, store = store, leeway = leeway, now = now
        return try await store.withExclusiveAccess {
            // Another process (or session) may have refreshed while we waited.
            let stored = try await store.load()
            guard let base = stored else {
                throw AuthFlowError(.reauthenticationRequired, "the session was signed out")
            }
            if base.accessToken != current.accessToken,
               !AuthSession.needsRefresh(base, rejected: rejected, leeway: leeway, now: now()) {
                client.logger.debug("using credentials refreshed elsewhere")
                return base
            }
            let refreshed = try await AuthSession.refreshWithRetry(base, client: client, store: store)
            try await store.save(refreshed)
            return refreshed
        }
    }

    static func refreshWithRetry(_ base: Credentials, client: OAuthClient, store: any CredentialStore) async throws -> Credentials {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.refresh(base)
            } catch let error as AuthFlowError {
                if error.category == .reauthenticationRequired || (error.category == .oauthError && error.oauth?.error == "invalid_grant") {
                    client.logger.info("refresh token refused; the session has ended")
                    try await store.delete()
                    throw AuthFlowError(.reauthenticationRequired, "the provider ended the session (\(error.oauth?.error ?? error.category.rawValue))")
                }
                guard let transient = transientFailure(error) else { throw error }
                if attempt >= 2 { throw transient }
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
            return AuthFlowError(.network, "the token endpoint failed: \(error.oauth?.errorDescription ?? error.oauth?.error ?? "server error")")
        default: return nil
        }
    }

    static func needsRefresh(_ credentials: Credentials, rejected: String?, leeway: TimeInterval, now: Date) -> Bool {
        if let rejected, constantTimeEquals(rejected, credentials.accessToken) { return true }
        guard let expiry = credentials.expiresAt else { return false }
        return expiry.timeIntervalSince(now) <= leeway
    }

    static func authorized(_ request: HTTPRequest, with credentials: Credentials) -> HTTPRequest {
        var request = request
        request.headers.removeAll { $0.name.caseInsensitiveCompare("Authorization") == .orderedSame }
        request.headers.append((name: "Authorization", value: "\(credentials.token.tokenType) \(credentials.accessToken)"))
        return request
    }
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
}

/// Credentials as an ``AuthSession`` holds and hands them to its callers:
/// immutable, shared by reference.
private final class HeldCredentials: Sendable {
    let credentials: Credentials
    init(_ credentials: Credentials) { self.credentials = credentials }
    /// Read in a synchronous call, so that no copy of the credentials lands in the caller's async frame.
    var accessToken: String {
        @inline(never) get { credentials.accessToken }
    }
}
