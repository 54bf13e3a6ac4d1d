import Crypto

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The claim rules of OIDC Core §3.1.3.7 that follow signature verification.
public struct IDTokenRules: Sendable {
    /// The issuer the token must name exactly.
    public var issuer: Issuer
    /// The client that must be an audience.
    public var clientID: String
    /// Allowed clock skew, in seconds (default 60).
    public var leeway: TimeInterval
    /// The nonce sent, if any; the token must carry it.
    public var nonce: String?
    /// `max_age` sent, if any; `auth_time` must then be recent enough.
    public var maxAge: Int?
    /// The `acr` values accepted, when the request made `acr` essential or
    /// the app asked for the check (``AuthorizationOptions/checksACRValues``):
    /// the token's `acr` must then be one of them. `nil` checks nothing.
    public var acrValues: [String]?
    /// When ``issuer`` is a multi-tenant template (`…/{tenantid}/…`), the
    /// tenants accepted: the token's `iss` must then be the template with its
    /// own `tid` in place. A template without this value is refused.
    public var tenants: IssuerTenants?

    /// Creates the rules for one token.
    public init(
        issuer: Issuer, clientID: String, nonce: String?, maxAge: Int? = nil, leeway: TimeInterval = 60,
        tenants: IssuerTenants? = nil
    ) {
        self.issuer = issuer
        self.tenants = tenants
        self.clientID = clientID
        self.nonce = nonce
        self.maxAge = maxAge
        self.leeway = leeway
    }

    /// Checks `claims`, in the order of OIDC Core §3.1.3.7, each failure with its reason.
    public func check(_ claims: IDTokenClaims, now: Date) throws {
        let expected = try expectedIssuer(claims)
        guard claims.issuerEquals(expected) else {
            throw AuthFlowError.idToken(.issuer, "the ID token's iss is \(claims.issuer), expected \(expected)")
        }
        guard claims.audienceContains(clientID) else {
            throw AuthFlowError.idToken(.audience, "the ID token is not addressed to this client")
        }
        if claims.audienceCount > 1, !claims.hasAuthorizedParty {
            throw AuthFlowError.idToken(.authorizedParty, "the ID token has several audiences and no azp")
        }
        if claims.hasAuthorizedParty, !claims.authorizedPartyEquals(clientID) {
            throw AuthFlowError.idToken(.authorizedParty, "the ID token's azp is another client")
        }
        guard now.timeIntervalSince(claims.expiresAt) < leeway else {
            throw AuthFlowError.idToken(.expired, "the ID token has expired")
        }
        guard claims.issuedAt.timeIntervalSince(now) <= leeway else {
            throw AuthFlowError.idToken(.issuedAt, "the ID token was issued in the future")
        }
        if let nonce {
            guard let matches = claims.nonceMatches(nonce) else { throw AuthFlowError.idToken(.nonce, "the ID token has no nonce") }
            guard matches else { throw AuthFlowError.idToken(.nonce, "the ID token's nonce does not match") }
        }
        if let maxAge {
            guard let authTime = claims.authTime else {
                throw AuthFlowError.idToken(.authTime, "max_age was sent but the ID token has no auth_time")
            }
            guard now.timeIntervalSince(authTime) <= TimeInterval(maxAge) + leeway else {
                throw AuthFlowError.idToken(.authTime, "the user authenticated longer ago than max_age")
            }
        }
        if let acrValues {
            guard let acr = claims.authenticationContextClass else {
                throw AuthFlowError.idToken(.authenticationContextClass, "an acr was required but the ID token has none")
            }
            guard acrValues.contains(acr) else {
                throw AuthFlowError.idToken(
                    .authenticationContextClass,
                    "the ID token's acr \(acr.prefix(100)) is not one of those required (\(acrValues.joined(separator: " ").prefix(300)))")
            }
        }
    }

    /// The issuer `claims` must name: ``issuer``, or for a multi-tenant
    /// template the template with the token's own `tid`, which ``tenants`` must allow.
    func expectedIssuer(_ claims: IDTokenClaims) throws -> String {
        guard issuer.isTemplate else { return issuer.identifier }
        guard let tenants else {
            throw AuthFlowError(
                .idTokenInvalid, "the issuer \(issuer) is a multi-tenant template and no tenants were allowed",
                reason: .issuer, recovery: IssuerAdvice.multiTenant, remedy: .chooseTenants)
        }
        guard case .string(let tenant)? = claims.all["tid"], let instance = try? issuer.instantiated(tid: tenant) else {
            throw AuthFlowError(
                .idTokenInvalid, "the ID token has no usable tid, so its iss cannot be checked against \(issuer)",
                reason: .issuer)
        }
        guard tenants.allows(tenant) else {
            throw AuthFlowError(
                .idTokenInvalid, "the ID token comes from tenant \(tenant), which is not among the allowed tenants",
                reason: .issuer,
                recovery: "Add \(tenant) to IssuerTenants.only if that organisation may sign in.", remedy: .allowTenant.with(tenant))
        }
        return instance.identifier
    }

    /// Checks `at_hash` when present: the left half of the hash of the access
    /// token, with the hash that matches `algorithm`, base64url.
    public static func checkAccessTokenHash(_ claims: IDTokenClaims, accessToken: String, algorithm: String) throws {
        guard let atHash = claims.accessTokenHash else { return }
        let bytes = Array(accessToken.utf8)
        let digest: [UInt8]
        switch algorithm {
        case "RS256", "PS256", "ES256", "HS256": digest = Array(SHA256.hash(data: bytes))
        case "RS384", "PS384", "ES384", "HS384": digest = Array(SHA384.hash(data: bytes))
        case "RS512", "PS512", "ES512", "HS512", "EdDSA": digest = Array(SHA512.hash(data: bytes))
        default: throw AuthFlowError.idToken(.atHash, "no hash is defined for \(algorithm)")
        }
        let expected = Base64URL.encode(digest.prefix(digest.count / 2))
        guard constantTimeEquals(expected, atHash) else {
            throw AuthFlowError.idToken(.atHash, "the ID token's at_hash does not match the access token")
        }
    }
}
