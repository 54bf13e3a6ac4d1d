#if Hummingbird // the Hummingbird package trait
import AuthFlow
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 7662: an opaque token's state, asked of the authorization server's
/// introspection endpoint with the API's client credentials
/// (`client_secret_basic`). An active answer must name this API in `aud`
/// when it has one (and have one when the options require it), and, when
/// it has a `token_type`, name an access token type (`Bearer` or `DPoP`):
/// a refresh token is refused. Kept in an ``IntrospectionCache`` for at most
/// the token's remaining life and ``maximumAge``.
struct TokenIntrospection: Sendable {
    let endpoint: URL
    let clientID: String
    let clientSecret: String
    let issuer: Issuer
    let resource: String
    let maximumAge: TimeInterval
    let leeway: TimeInterval
    let transport: any HTTPTransport
    let timeout: TimeInterval
    let cache: IntrospectionCache
    /// Whether an answer without `aud` is refused (``ProtectedResourceOptions/introspectionRequiresAudience``).
    var requiresAudience = false

    /// `Bearer` or `DPoP`, in any case: the access token types this API takes.
    static func isAccessTokenType(_ type: String?) -> Bool {
        guard let type = type?.lowercased() else { return false }
        return type == "bearer" || type == "dpop"
    }

    func verify(_ token: String, scheme: AuthorizationScheme, now: Date = Date()) async throws(AccessFailure) -> VerifiedAccessToken {
        let key = Base64URL.encode(Array(SHA256.hash(data: Array(token.utf8))))
        if let cached = await cache.value(for: key, now: now) { return cached }
        let members = try await ask(token)
        guard members["active"]?.boolValue == true else { throw .invalidToken("the token is not active", scheme: scheme) }
        if let iss = members["iss"], !issuer.admits(iss.stringValue ?? "", tenants: nil) {
            throw .invalidToken("the token's iss is not \(issuer)", scheme: scheme)
        }
        // RFC 7662 §2.2: token_type is a token type of RFC 6749 §7.1; a refresh token is no access token.
        if let type = members["token_type"], !Self.isAccessTokenType(type.stringValue) {
            throw .invalidToken("the token is not an access token (token_type)", scheme: scheme)
        }
        if requiresAudience, members["aud"] == nil {
            throw .invalidToken("the introspection answer names no aud", scheme: scheme)
        }
        if let aud = members["aud"] {
            let audiences = aud.arrayValue?.compactMap(\.stringValue) ?? aud.stringValue.map { [$0] } ?? []
            guard audiences.contains(where: { $0.hasSameBytes(as: resource) }) else {
                throw .invalidToken("the token is not addressed to \(resource)", scheme: scheme)
            }
        }
        let expiresAt = members["exp"]?.numberValue.map(Date.init(timeIntervalSince1970:))
        if let expiresAt, now.timeIntervalSince(expiresAt) >= leeway { throw .invalidToken("the token has expired", scheme: scheme) }
        if let nbf = members["nbf"]?.numberValue, nbf - now.timeIntervalSince1970 > leeway {
            throw .invalidToken("the token is not valid yet (nbf)", scheme: scheme)
        }
        let verified = VerifiedAccessToken(
            subject: members["sub"]?.stringValue, clientID: members["client_id"]?.stringValue,

            dpopThumbprint: try JWTAccessTokenRules.confirmation(members["cnf"], scheme: scheme),
            expiresAt: expiresAt, source: .introspection, claims: AccessTokenClaims(members))
        let lifetime = min(maximumAge, expiresAt.map { $0.timeIntervalSince(now) } ?? maximumAge)
        if lifetime > 0 { await cache.store(verified, for: key, until: now.addingTimeInterval(lifetime)) }
        return verified
    }

    private func ask(_ token: String) async throws(AccessFailure) -> [String: JSONMemberValue] {
        // RFC 6749 §2.3.1: each part form-urlencoded, then Basic.
        let credentials = Data((FormEncoding.escape(clientID) + ":" + FormEncoding.escape(clientSecret)).utf8).base64EncodedString()
        let body = FormEncoding.encode([("token", token), ("token_type_hint", "access_token")])
        let response: HTTPTransportResponse
        do {
            response = try await transport.send(
                HTTPTransportRequest(
                    method: "POST", url: endpoint,
                    headers: [
                        ("Authorization", "Basic " + credentials), ("Content-Type", "application/x-www-form-urlencoded"),
                        ("Accept", "application/json"),
                    ],
                    body: Data(body.utf8), timeout: timeout, purpose: .token))
        } catch {
            throw .unavailable("the introspection endpoint could not be reached")
        }
        guard response.status == 200, let members = JSONMemberValue.object(from: response.body) else {
            throw .unavailable("the introspection endpoint answered HTTP \(response.status)")
        }
        return members
    }
}

/// Introspection answers for active tokens, by the SHA-256 of the token
/// (the token itself is not kept), each until its own expiry; at most
/// ``capacity`` entries: the one closest to expiry goes first.
actor IntrospectionCache {
    let capacity: Int
    private var entries: [String: (token: VerifiedAccessToken, expiresAt: Date)] = [:]

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func value(for key: String, now: Date) -> VerifiedAccessToken? {
        guard let entry = entries[key] else { return nil }
        guard entry.expiresAt > now else {
            entries[key] = nil
            return nil
        }
        return entry.token
    }

    func store(_ token: VerifiedAccessToken, for key: String, until expiresAt: Date) {
        if entries.count >= capacity {
            let now = Date()
            entries = entries.filter { $0.value.expiresAt > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
                entries[soonest] = nil
            }
        }
        entries[key] = (token, expiresAt)
    }

    /// How many answers are held (for tests).
    var count: Int { entries.count }
}
#endif
