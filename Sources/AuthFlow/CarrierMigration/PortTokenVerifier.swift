public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Verifies port tokens (``PortToken``): the issuer against a trusted set
/// first, then the signature with that issuer's discovered keys, the
/// audience, and the token's age.
///
/// The rules, in order, each a ``AuthFlowError/Category/jwtInvalid`` with
/// its reason:
/// 1. The token's `iss` must be one of ``trustedIssuers`` exactly
///    (``AuthFlowError/Reason/issuer``), checked before anything is fetched:
///    an untrusted token never makes the verifier contact the server it
///    names.
/// 2. That issuer is discovered (its metadata's `issuer` must match, as
///    always) and the signature is checked against its `jwks_uri`, by `kid`,
///    refetching once on rotation; asymmetric algorithms only.
/// 3. `aud` must include ``clientID``.
/// 4. `iat` is required and the token is accepted for ``maximumAge``
///    seconds after it (a port token has no `exp`; one it carries is still
///    checked): ``JWTVerifier/Lifetime/issuedWithin(_:)``.
/// 5. `sub` is required; given the new carrier's ID token, it must equal
///    that token's `sub` (``AuthFlowError/Reason/subject``).
///
/// One discovery per issuer, shared by concurrent callers and kept for the
/// verifier's life; keys expire and rotate as ``KeySetCache`` decides.
public final class PortTokenVerifier: Sendable {
    /// The carriers whose port tokens are accepted.
    public let trustedIssuers: Set<Issuer>
    /// The app's client ID, which the token's `aud` must include.
    public let clientID: String
    /// Seconds after `iat` a token is accepted for.
    public let maximumAge: TimeInterval
    private let algorithms: Set<String>
    private let transport: any HTTPTransport
    private let timeout: TimeInterval
    private let leeway: TimeInterval
    private let logger: Logger
    private let verifiers = LockedValue<[Issuer: Task<JWTVerifier, any Error>]>([:])

    /// Creates a verifier for the port tokens of `trustedIssuers` addressed
    /// to `clientID`, each accepted for `maximumAge` seconds after its `iat`
    /// (port tokens carry no `exp`: choose the age from how long after a
    /// carrier change the app still expects to see a user's first sign-in).
    public init(
        trustedIssuers: Set<Issuer>, clientID: String, maximumAge: TimeInterval,
        algorithms: Set<String> = ["RS256", "PS256", "ES256", "EdDSA"], transport: any HTTPTransport = URLSessionTransport(),
        timeout: TimeInterval = 30, leeway: TimeInterval = 60, logger: Logger = .authFlow()
    ) {
        self.trustedIssuers = trustedIssuers
        self.clientID = clientID
        self.maximumAge = maximumAge
        self.algorithms = algorithms
        self.transport = transport
        self.timeout = timeout
        self.leeway = leeway
        self.logger = logger
    }

    /// Verifies `token`, a port token on its own.
    public func verify(_ token: String, now: Date = Date()) async throws -> PortToken {
        let issuer = try trustedIssuer(of: token)
        let jwt = try await verifier(for: issuer).verify(token, now: now)
        guard let subject = jwt.subject, !subject.isEmpty else {
            throw JWTVerifier.invalid(.subject, "the port token has no sub")
        }
        guard let issuedAt = jwt.issuedAt else { throw JWTVerifier.invalid(.issuedAt, "the port token has no iat") }
        return PortToken(previousIssuer: issuer, subject: subject, issuedAt: issuedAt, jwt: jwt)
    }

    /// Verifies the port token a new carrier's verified ID token carries in
    /// its `aka` claim, and that it names the same user (`sub`). Nil when
    /// the ID token carries none.
    public func verify(carriedBy idToken: IDTokenClaims, now: Date = Date()) async throws -> PortToken? {
        guard let token = idToken.string(PortToken.claimName) else {
            if idToken.hasClaim(PortToken.claimName) {
                throw AuthFlowError(.jwtInvalid, "the ID token's \(PortToken.claimName) claim is not a string", reason: .malformed)
            }
            return nil
        }
        let portToken = try await verify(token, now: now)
        guard portToken.subject.hasSameBytes(as: idToken.subject) else {
            throw JWTVerifier.invalid(.subject, "the port token names another user than the ID token carrying it")
        }
        return portToken
    }

    /// The token's `iss` when it is trusted, read before any verification.
    private func trustedIssuer(of token: String) throws -> Issuer {
        let jws: CompactJWS
        do {
            jws = try CompactJWS(reading: token[...])
        } catch let error as AuthFlowError {
            throw AuthFlowError(.jwtInvalid, error.message, reason: .malformed)
        }
        guard let iss = jws.claimMembers.string("iss") else { throw JWTVerifier.invalid(.issuer, "the port token has no iss") }
        guard let trusted = trustedIssuers.first(where: { $0.identifier.hasSameBytes(as: iss) }) else {
            throw JWTVerifier.invalid(.issuer, "the port token's issuer is not a trusted carrier")
        }
        return trusted
    }

    /// The verifier of `issuer`'s tokens, discovered once.
    private func verifier(for issuer: Issuer) async throws -> JWTVerifier {
        let task = verifiers.withLock { verifiers in
            if let existing = verifiers[issuer] { return existing }
            let (algorithms, transport, timeout, leeway, logger, clientID, maximumAge) =
                (self.algorithms, self.transport, self.timeout, self.leeway, self.logger, self.clientID, self.maximumAge)
            let created = Task<JWTVerifier, any Error> {
                let metadata = try await ProviderMetadata.discover(issuer: issuer, transport: transport, timeout: timeout, logger: logger)
                guard let jwksURI = metadata.jwksURI else {
                    throw AuthFlowError.configuration("the carrier \(issuer) publishes no jwks_uri")
                }
                let keys = try KeySetCache(jwksURI: jwksURI, transport: transport, timeout: timeout, logger: logger)
                return JWTVerifier(
                    issuer: issuer, audience: clientID, keys: keys, lifetime: .issuedWithin(maximumAge), algorithms: algorithms,
                    leeway: leeway)
            }
            verifiers[issuer] = created
            return created
        }
        do {
            return try await task.value
        } catch {
            // A failed discovery is tried again by the next token, not kept.
            verifiers.withLock { verifiers in
                if verifiers[issuer] == task { verifiers[issuer] = nil }
            }
            throw error
        }
    }
}
