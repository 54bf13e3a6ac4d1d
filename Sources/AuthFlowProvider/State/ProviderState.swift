#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowHummingbird
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// All mutable state of one provider: keys, codes, tokens, device
/// authorizations. An actor, so that redeeming a code or rotating a refresh
/// token is atomic: of two concurrent uses, exactly one wins.
actor ProviderState {
    let configuration: ProviderConfiguration
    let logger: Logger
    /// `http://127.0.0.1:PORT`, known once the server is bound.
    private(set) var issuer: String = ""
    var keys: KeyRing
    var grants: [String: GrantRecord] = [:]
    var codes: [String: CodeRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var devices: [String: DeviceRecord] = [:]
    /// Backchannel authentications (OpenID CIBA Core 1.0) by `auth_req_id`.
    var backchannel: [String: BackchannelRecord] = [:]
    /// Pushed authorization requests by `request_uri` (RFC 9126).
    var pushedRequests: [String: PushedRequestRecord] = [:]
    /// Login-page interactions begun from a pushed request, by handle, each
    /// with its own lifetime (``TokenLifetimes/interaction``).
    var interactions: [String: PushedRequestRecord] = [:]
    /// DPoP proofs already used, until they could no longer pass the `iat`
    /// check: the API middleware's cache, as an API behind it keeps them.
    let usedProofs = MemoryReplayCache()
    /// The DPoP nonce the provider asks for (RFC 9449 §8), when nonces are required.
    let dpopNonce = RandomToken.make(bytes: 16)
    /// Client assertions already used (`client_id jti` → expiry).
    var usedAssertions: [String: Date] = [:]
    /// The verifiers of trusted identity providers' ID-JAGs, by issuer.
    var identityAssertionVerifiers: [String: JWTVerifier] = [:]
    /// Clients registered at the registration endpoint (RFC 7591), by id.
    var registeredClients: [String: ProviderClient] = [:]
    /// Clients known from their metadata documents, by URL.
    var metadataDocumentClients: [String: CachedMetadataDocumentClient] = [:]
    private var lastSweep = Date.distantPast

    init(configuration: ProviderConfiguration) throws {
        self.configuration = configuration
        logger = configuration.logger
        keys = try KeyRing(keys: configuration.signingKeys)
    }

    func setIssuer(_ issuer: String) { self.issuer = issuer }

    /// A new grant's id.
    func addGrant(_ grant: GrantRecord) -> String {
        let id = RandomToken.make(bytes: 12)
        grants[id] = grant
        return id
    }

    /// Revokes a grant and so every token issued from it.
    func revokeGrant(_ id: String, reason: String) {
        grants[id]?.revoked = true
        logger.info("grant revoked", metadata: ["reason": "\(reason)"])
    }

    /// Key rotation: a new active key per algorithm; the old ones stay published.
    func rotateKeys() throws -> [String] { try keys.rotate() }

    /// Stops publishing keys replaced by earlier rotations.
    func retireKeys() -> [String] { keys.retire() }

    /// The JWK Set document.
    func jwks() throws -> JSONMemberValue { try keys.jwks() }

    /// Drops expired codes, tokens and device authorizations, at most every
    /// 10 s (called when something is issued). Used codes and rotated refresh
    /// tokens are kept until they expire, so that a replay is still recognised.
    func sweep(now: Date) {
        guard now.timeIntervalSince(lastSweep) >= 10 else { return }
        lastSweep = now
        codes = codes.filter { $0.value.expiresAt.addingTimeInterval(300) > now }
        devices = devices.filter { $0.value.expiresAt.addingTimeInterval(300) > now }
        backchannel = backchannel.filter { $0.value.expiresAt.addingTimeInterval(300) > now }
        accessTokens = accessTokens.filter { $0.value.expiresAt > now }
        refreshTokens = refreshTokens.filter { $0.value.expiresAt > now }
        pushedRequests = pushedRequests.filter { $0.value.expiresAt > now }
        interactions = interactions.filter { $0.value.expiresAt > now }
        usedAssertions = usedAssertions.filter { $0.value.addingTimeInterval(ClientAssertionCheck.leeway) > now }
    }

    /// Accepts a client assertion once (RFC 7523 §3 item 7): a second use of
    /// its `jti` before it expires is `invalid_client`.
    func rememberAssertion(_ assertion: ClientAssertionCheck.Accepted, now: Date) throws(OAuthFailure) {
        guard useOnce(assertion.replayKey, until: assertion.expiresAt, now: now) else {
            throw .invalidClient("the client assertion was already used (jti replay)")
        }
    }

    /// Whether `key` (an assertion's issuer or client and its `jti`) is used
    /// for the first time; it is then kept until `until`, so a second use
    /// before that is seen. The one replay record of client assertions and
    /// identity assertion grants.
    func useOnce(_ key: String, until: Date, now: Date) -> Bool {
        sweep(now: now)
        guard usedAssertions[key] == nil else { return false }
        usedAssertions[key] = until
        return true
    }
}
#endif
