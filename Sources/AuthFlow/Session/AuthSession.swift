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
    private var credentials: Credentials?
    private var loaded = false
    private var unsaved: Credentials?
    private var refreshTask: Task<Credentials, any Error>?

    /// Creates a session. Given `credentials` are written to the store on
    /// first use; without them, the store is read on first use.
    public init(client: OAuthClient, store: any CredentialStore = MemoryCredentialStore(), credentials: Credentials? = nil,
                leeway: TimeInterval = 60, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.store = store
        self.credentials = credentials
        self.leeway = leeway
        self.now = now
        loaded = credentials != nil
        unsaved = credentials
    }

    /// The credentials held now (possibly expired), or nil when signed out.
    public var currentCredentials: Credentials? {
        get async throws {
            try await loadIfNeeded()
            return credentials
        }
    }

    /// A valid access token, refreshed first when it expires within the leeway.
    public func freshAccessToken() async throws -> String {
        try await freshCredentials().accessToken
    }

    /// Runs `body` with a valid access token.
    public func withFreshAccessToken<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        try await body(freshAccessToken())
    }

    /// Valid credentials. With `rejecting`, credentials whose access token
    /// equals it (a resource server refused it) are refreshed even if not expired.
    public func freshCredentials(rejecting rejected: String? = nil) async throws -> Credentials {
        try await loadIfNeeded()
        guard let current = credentials else {
            throw AuthFlowError(.reauthenticationRequired, "not signed in")
        }
        if !AuthSession.needsRefresh(current, rejected: rejected, leeway: leeway, now: now()) { return current }
        if let refreshTask { return try await refreshTask.value }
        let task = Task { try await self.refreshUnderLock(from: current, rejected: rejected) }
        refreshTask = task
        defer { refreshTask = nil }
        do {
            let refreshed = try await task.value
            credentials = refreshed
            return refreshed
        } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
            credentials = nil
            throw error
        }
    }

    /// Sends `request` with `Authorization: <type> <token>` (header only, never
    /// the query). On a 401 whose `WWW-Authenticate` says `invalid_token`, it
    /// refreshes once and retries once.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
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
        let held = credentials
        credentials = nil
        unsaved = nil
        try await store.delete()
        guard let held else { return nil }
        let endSession = try client.endSessionURL(idTokenHint: held.token.idToken, postLogoutRedirectURI: postLogoutRedirectURI,
                                                  state: postLogoutRedirectURI == nil ? nil : SecureRandom.token())
        if client.metadata.revocationEndpoint != nil {
            try await client.revokeAll(held)
        }
        return endSession
    }

    private func loadIfNeeded() async throws {
        if let unsaved {
            self.unsaved = nil
            try await store.save(unsaved)
        }
        guard !loaded else { return }
        credentials = try await store.load()
        loaded = true
    }

    private func refreshUnderLock(from current: Credentials, rejected: String?) async throws -> Credentials {
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
