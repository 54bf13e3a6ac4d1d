#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks a JWT client assertion (`private_key_jwt`, `client_secret_jwt`;
/// RFC 7523 §3, OpenID Connect Core §9). Every failure is `invalid_client`
/// except a malformed request (`invalid_request`).
struct ClientAssertionCheck: Sendable {
    /// What an accepted assertion leaves behind for replay detection.
    struct Accepted: Sendable {
        let client: ProviderClient
        /// `client_id` + `jti`: unique per client.
        let replayKey: String
        let expiresAt: Date
    }

    static let jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest `exp - now` accepted (Authlib's client signs for an hour by default).
    static let maximumLifetime: TimeInterval = 3600
    /// Clock skew allowed on `exp`, `nbf` and `iat`.
    static let leeway: TimeInterval = 30
    /// Algorithms for `private_key_jwt` and DPoP proofs: every asymmetric one
    /// the engine verifies. The metadata and the challenges list exactly these.
    static let asymmetric: Set<String> = DPoPProofVerifier.asymmetricAlgorithms
    /// The fewest secret bytes for each HMAC algorithm: its hash size
    /// (RFC 7518 §3.2); HS256's is the engine's minimum.
    static let secretBytes: [String: Int] = ["HS256": ClientAuthentication.minimumHMACSecretBytes, "HS384": 48, "HS512": 64]
    /// Algorithms for `client_secret_jwt`: those with a secret size.
    static let symmetric = Set(secretBytes.keys)

    let clients: [ProviderClient]
    let audiences: Set<String>
    let now: Date

    func check(_ form: StrictForm) throws(OAuthFailure) -> Accepted {
        guard form["client_assertion_type"] == ClientAssertionCheck.jwtBearer else {
            throw .invalidClient("client_assertion_type must be \(ClientAssertionCheck.jwtBearer)")
        }
        guard let token = form["client_assertion"] else { throw .invalidRequest("client_assertion is missing") }
        guard let jws = try? CompactJWS(token) else { throw .invalidClient("the client assertion is not a JWS") }
        let claims = jws.claims
        guard let issuer = claims["iss"]?.stringValue, let subject = claims["sub"]?.stringValue, issuer == subject else {
            throw .invalidClient("the client assertion's iss and sub must both be the client id")
        }
        if let id = form["client_id"], id != subject { throw .invalidClient("client_id differs from the assertion's sub") }
        guard let client = clients.first(where: { $0.id == subject }) else { throw .invalidClient("unknown client") }
        let allowed: Set<String>
        switch client.authentication {
        case .privateKeyJWT: allowed = ClientAssertionCheck.asymmetric
        case .clientSecretJWT: allowed = ClientAssertionCheck.symmetric
        default: throw .invalidClient("the client is not registered for private_key_jwt or client_secret_jwt")
        }
        if client.authentication == .clientSecretJWT, let name = jws.algorithm,
            let needed = ClientAssertionCheck.secretBytes[name], (client.secret?.utf8.count ?? 0) < needed
        {
            throw .invalidClient("the client's secret is shorter than \(name) needs (\(needed) bytes, RFC 7518 §3.2)")
        }
        let keys = client.jwks.flatMap { try? JSONEncoder().encode($0) }
        switch ClientAssertionSignature.check(jws, allowed: allowed, keys: keys, secret: client.secret) {
        case .valid: break
        case .algorithmRefused:
            throw .invalidClient(
                "the assertion's algorithm \(jws.algorithm ?? "(none)") is not accepted for \(client.authentication.rawValue)")
        case .noKey: throw .invalidClient("no registered key of the client fits the assertion")
        case .invalid: throw .invalidClient("the client assertion's signature is invalid")
        }
        guard case .string(let audience)? = claims["aud"] else {
            throw .invalidClient("the client assertion's aud must be a single string, this issuer")
        }
        guard audiences.contains(where: { $0.hasSameBytes(as: audience) }) else {
            throw .invalidClient("the client assertion's aud is not this issuer")
        }
        guard let exp = claims["exp"]?.numberValue else { throw .invalidClient("the client assertion has no exp") }
        let expiresAt = Date(timeIntervalSince1970: exp)
        guard expiresAt.addingTimeInterval(ClientAssertionCheck.leeway) > now else {
            throw .invalidClient("the client assertion has expired")
        }
        guard expiresAt.timeIntervalSince(now) <= ClientAssertionCheck.maximumLifetime else {
            throw .invalidClient(
                "the client assertion is valid for too long (exp more than \(Int(ClientAssertionCheck.maximumLifetime)) s ahead)")
        }
        if let nbf = claims["nbf"]?.numberValue, nbf - now.timeIntervalSince1970 > ClientAssertionCheck.leeway {
            throw .invalidClient("the client assertion is not valid yet (nbf)")
        }
        if let iat = claims["iat"]?.numberValue, iat - now.timeIntervalSince1970 > ClientAssertionCheck.leeway {
            throw .invalidClient("the client assertion was issued in the future (iat)")
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { throw .invalidClient("the client assertion has no jti") }
        return Accepted(client: client, replayKey: "\(client.id) \(jti)", expiresAt: expiresAt)
    }
}
#endif
