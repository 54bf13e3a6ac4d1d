import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AuthSession {
    /// A valid access token for `resource`, another API than the session's
    /// own, obtained with `grant` when none is held (see
    /// ``resourceToken(for:using:minimumValidity:rejecting:)``).
    ///
    /// ```swift
    /// let billing = try ResourceIdentifier(URL(string: "https://billing.example.com")!)
    /// let token = try await session.freshAccessToken(for: billing)
    /// ```
    public nonisolated func freshAccessToken(
        for resource: ResourceIdentifier, using grant: ResourceTokenGrant = .refreshToken, minimumValidity: TimeInterval? = nil
    ) async throws -> String {
        try await resourceToken(for: resource, using: grant, minimumValidity: minimumValidity).accessToken
    }

    /// A valid token for `resource` (RFC 8707), held one per resource beside
    /// the session's own token and kept in the session's ``SessionRecord``.
    ///
    /// - A held token is handed out while it stays valid (the session's
    ///   leeway, or `minimumValidity`), has the grant's scopes and is not
    ///   `rejected` (a resource server refused it).
    /// - Otherwise it is renewed with `grant`, once however many callers ask
    ///   for the same resource: callers in this process wait for one
    ///   request, and the request runs under the store's exclusive lock
    ///   after reading the store again, so another process (or machine, with
    ///   a shared store) that got a token for the resource meanwhile hands
    ///   its token over instead of a second request.
    /// - A refresh token rotated by ``ResourceTokenGrant/refreshToken`` is
    ///   saved as the session's own before the token is handed out, as for
    ///   every refresh; `invalid_grant` ends the session.
    /// - The session's own resource (``OAuthClient/resource``) is answered
    ///   with the session's own token.
    /// - ``signOut(postLogoutRedirectURI:)`` ends every token.
    ///
    /// - Throws: ``AuthFlowError``: `reauthentication_required` when signed
    ///   out; `configuration` for ``ResourceTokenGrant/refreshToken`` without
    ///   a refresh token; the provider's refusal as `oauth_error` (such as
    ///   `invalid_target` for a resource the grant does not cover).
    public nonisolated func resourceToken(
        for resource: ResourceIdentifier, using grant: ResourceTokenGrant = .refreshToken, minimumValidity: TimeInterval? = nil,
        rejecting rejected: String? = nil
    ) async throws -> ResourceToken {
        if resource == client.resource {
            let own = try await held(Demand(rejected: rejected, minimumValidity: minimumValidity)).credentials
            return ResourceToken(resource: resource, token: own.token, grant: "session")
        }
        if !state.withLock({ $0.ready }) { try await loadIfNeeded() }
        let demand = ResourceDemand(resource: resource, grant: grant, rejected: rejected, minimumValidity: minimumValidity)
        // A renewal this caller joined may have been asked for other scopes, or
        // have ended in the token this caller rejects: then one more, its own.
        var joined = false
        while true {
            let now = now()
            let lookup = try state.withLock { fields throws(AuthFlowError) -> ResourceLookup in
                guard !fields.signedOut, fields.credentials != nil else { throw AuthFlowError.notSignedIn }
                if let held = fields.resourceTokens[resource], !demand.isUnmet(by: held, leeway: leeway, now: now) {
                    return .valid(held)
                }
                if let inFlight = fields.resourceTasks[resource] { return .renewing(inFlight, joined: true) }
                let task = Task { try await self.renew(demand) }
                fields.resourceTasks[resource] = task
                return .renewing(task, joined: false)
            }
            switch lookup {
            case .valid(let token): return token
            case .renewing(let task, let isJoined):
                let token = try await task.value
                if !isJoined || joined || !demand.isUnmet(by: token, leeway: leeway, now: self.now()) { return token }
                joined = true
            }
        }
    }

    /// The tokens for other resources held now (possibly expired); no I/O.
    public nonisolated var heldResourceTokens: [ResourceToken] {
        state.withLock { fields in fields.resourceTokens.values.sorted { $0.resource.description < $1.resource.description } }
    }

    /// Sends `request` to `resource` with the session's token for it
    /// (``resourceToken(for:using:minimumValidity:rejecting:)``), as
    /// ``send(_:)`` does with the session's own: in the header, a 401
    /// `invalid_token` renewing the token once and retrying once.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` before any token is
    ///   read when `request` goes to another origin than `resource`'s, or
    ///   over plain http to a host that is not a loopback one.
    public nonisolated func send(
        _ request: HTTPTransportRequest, to resource: ResourceIdentifier, using grant: ResourceTokenGrant = .refreshToken
    ) async throws -> HTTPTransportResponse {
        try URLPolicy.requireSecure(request.url, "a request that carries the access token")
        try AuthSession.requireOrigin(of: resource, for: request)
        return try await sendRenewingOnce(request) { rejected in
            try await self.resourceToken(for: resource, using: grant, rejecting: rejected).credentials
        }
    }

    /// The body of a renewal task: the token, held by the session (with the
    /// session's own credentials when a refresh token rotated) before the
    /// store's lock is released.
    private nonisolated func renew(_ demand: ResourceDemand) async throws -> ResourceToken {
        do {
            let outcome = try await renewUnderLock(demand)
            state.withLock { $0.resourceTasks[demand.resource] = nil }
            if let pending = outcome.pendingSave { emit(.notSaved(pending.error)) }
            if let refusal = outcome.refusal { throw refusal }
            return outcome.token
        } catch {
            throw settle(error) { $0.resourceTasks[demand.resource] = nil }
        }
    }

    /// Under the store's lock: the token another holder stored meanwhile,
    /// else a new one by the demand's grant, saved with the record and held.
    private nonisolated func renewUnderLock(_ demand: ResourceDemand) async throws -> RenewedResourceToken {
        let client = client
        let store = store
        let now = now
        let leeway = leeway
        // A token exchange and an identity assertion present the session's
        // own tokens: made valid first, outside the lock their refresh takes.
        let subject: OAuthCredentials? =
            switch demand.grant.kind {
            case .refreshToken: nil
            case .tokenExchange: try await freshCredentials()
            case .identityAssertion: try await freshIdentity()
            }
        return try await exclusively {
            guard let record = try await store.load() else { throw SessionEnded.signedOutMeanwhile }
            if let stored = record.resourceToken(for: demand.resource), !demand.isUnmet(by: stored, leeway: leeway, now: now()) {
                client.logger.debug("using a resource token obtained elsewhere")
                self.hold(stored)
                return RenewedResourceToken(token: stored)
            }
            let issued: TokenResponse
            var kept: OAuthCredentials?
            switch demand.grant.kind {
            case .refreshToken(let namingAudience):
                let (base, _) = self.newest(record.credentials)
                guard base.token.refreshToken != nil else {
                    throw AuthFlowError(
                        .configuration, "the session holds no refresh token to ask for a token for \(demand.resource)",
                        recovery: "Sign in with a refresh token (the offline_access scope), or use ResourceTokenGrant.tokenExchange().")
                }
                try await store.refreshWillStart()
                let refreshed = try await AuthSession.refreshWithRetry(client: client, store: store) {
                    try await client.refresh(base, for: demand.resource, namingAudience: namingAudience, scopes: demand.grant.scopes)
                }
                kept = refreshed.credentials
                issued = refreshed.token
            case .tokenExchange:
                let request = TokenExchangeRequest(
                    subject: .init(subject?.accessToken ?? "", type: .accessToken), requestedTokenType: .accessToken,
                    resources: [demand.resource], scopes: demand.grant.scopes)
                issued = try await client.exchangeToken(request).token
            case .identityAssertion(let server):
                issued = try await AuthSession.redeemIdentityAssertion(
                    from: client, idToken: subject?.token.idToken, at: server, for: demand.resource, scopes: demand.grant.scopes)
            }
            let token = ResourceToken(resource: demand.resource, token: issued, grant: demand.grant.name)
            let refusal = ResourceToken.audienceRefusal(issued, for: demand.resource)
            // A refused token is not kept; a refresh token rotated while issuing it is.
            if let refusal, kept == nil { throw refusal }
            var updated = refusal == nil ? record.holding(token) : record
            if let kept { updated.credentials = kept }
            var pendingSave: PendingSave?
            do {
                try await store.save(updated)
            } catch {
                guard let kept else {
                    client.logger.info("the resource token could not be saved; it is held in this process only")
                    if refusal == nil { self.hold(token) }
                    return RenewedResourceToken(token: token)
                }
                pendingSave = PendingSave(kept, replacing: record.credentials, error: error, client: client)
            }
            if let kept { _ = self.hold(kept, pendingSave: pendingSave) }
            if refusal == nil { self.hold(token) }
            return RenewedResourceToken(token: token, pendingSave: pendingSave, refusal: refusal)
        }
    }

    /// Makes `token` the session's for its resource (under the store's lock),
    /// unless the session ended.
    private nonisolated func hold(_ token: ResourceToken) {
        state.withLock { fields in
            if !fields.signedOut { fields.resourceTokens[token.resource] = token }
        }
    }

    /// The session's credentials with an ID token that stays valid for 30 s
    /// more (renewed by the session's refresh otherwise): what an identity
    /// assertion is asked for with.
    nonisolated func freshIdentity() async throws -> OAuthCredentials {
        let signedIn = try await freshCredentials()
        guard let idToken = signedIn.idToken, idToken.expiresAt <= now().addingTimeInterval(30) else { return signedIn }
        return try await freshCredentials(rejecting: signedIn.accessToken)
    }

    /// An identity assertion for `server` and `resource` from `identityProvider`
    /// (with the user's `idToken`), redeemed at `server`.
    static func redeemIdentityAssertion(
        from identityProvider: OAuthClient, idToken: String?, at server: OAuthClient, for resource: ResourceIdentifier, scopes: [String]
    ) async throws -> TokenResponse {
        guard let idToken else {
            throw AuthFlowError(
                .reauthenticationRequired, "the identity provider's session holds no ID token",
                recovery: "Sign in at the identity provider with the openid scope.")
        }
        guard let issuer = server.metadata.issuer else {
            throw AuthFlowError(.configuration, "the authorization server has no issuer: an identity assertion names it")
        }
        let assertion = try await identityProvider.requestIdentityAssertion(
            for: issuer, clientID: server.clientID, resource: resource, idToken: idToken, scopes: scopes)
        return try await server.redeem(assertion, scopes: scopes).token
    }

    /// What ``resourceToken(for:using:minimumValidity:rejecting:)`` asks for.
    struct ResourceDemand: Sendable {
        let resource: ResourceIdentifier
        let grant: ResourceTokenGrant
        let rejected: String?
        let minimumValidity: TimeInterval?

        /// Whether `token` does not do: rejected, without a scope asked for, or expiring.
        func isUnmet(by token: ResourceToken, leeway: TimeInterval, now: Date) -> Bool {
            token.needsRenewal(rejected: rejected, scopes: grant.scopes, minimumValidity: minimumValidity, leeway: leeway, now: now)
        }
    }

    private enum ResourceLookup {
        case valid(ResourceToken)
        /// A renewal; `joined` when another caller started it.
        case renewing(Task<ResourceToken, any Error>, joined: Bool)
    }
}

/// What a renewal under the store's lock produced (already held).
struct RenewedResourceToken: Sendable {
    let token: ResourceToken
    /// The session's own credentials with a rotated refresh token, when the store did not take them.
    var pendingSave: PendingSave?
    /// Why ``token`` is not handed out (``ResourceToken/audienceRefusal(_:for:)``).
    var refusal: AuthFlowError?
}

extension AuthFlowError {
    /// The session ended (signed out, or never signed in).
    static var notSignedIn: AuthFlowError {
        AuthFlowError(.reauthenticationRequired, "not signed in", recovery: "Sign in again.", remedy: .signInAgain)
    }
}
