#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// Issues an access token (and a refresh token when the client may
    /// refresh, and an ID token when `openid` was granted) for `grantID`,
    /// and returns the token response (RFC 6749 §5.1) with the ID token still
    /// to be signed: the signature is CPU work that need not hold the actor.
    ///
    /// The access token is a JWT (RFC 9068, `typ` `at+jwt`, signed with the
    /// ES256 key; or an opaque string with ``ProviderConfiguration/issuesOpaqueAccessTokens``)
    /// whose `aud` is `resource`, else the grant's resource, else
    /// the provider's userinfo endpoint. It is also remembered, so that
    /// userinfo, introspection and revocation find it by its text.
    func issueTokens(
        grantID: String, nonce: String?, refresh: Bool, scopes narrowed: [String]? = nil, resource: String? = nil,
        actor: JSONMemberValue? = nil, notAfter: Date? = nil, now: Date = Date()
    ) throws -> IssuedTokens {
        guard let grant = grants[grantID], let client = self.client(grant.clientID) else {
            throw OAuthFailure.invalidGrant("the grant no longer exists")
        }
        sweep(now: now)
        let lifetimes = configuration.lifetimes
        let scopes = narrowed ?? grant.scopes
        let audience = resource ?? grant.resource ?? issuer + EndpointPaths.userinfo
        // An exchanged token never outlives the token it was exchanged for.
        let expiresAt = min(now.addingTimeInterval(lifetimes.accessToken), notAfter ?? .distantFuture)
        let accessToken =
            configuration.issuesOpaqueAccessTokens
            ? RandomToken.make()
            : try JWSSigner.sign(
                accessTokenClaims(grant: grant, scopes: scopes, audience: audience, expiresAt: expiresAt, actor: actor, now: now),
                with: keys.signer(for: .es256), type: "at+jwt")
        accessTokens[accessToken] = AccessTokenRecord(
            grantID: grantID, scopes: scopes, audience: audience, issuedAt: now, expiresAt: expiresAt, actor: actor)
        var response: [String: JSONMemberValue] = [
            "access_token": .string(accessToken),
            "token_type": .string(grant.dpopJKT == nil ? "Bearer" : "DPoP"),
            "expires_in": .number(expiresAt.timeIntervalSince(now).rounded(.down)),
            "scope": .string(scopes.joined(separator: " ")),
        ]
        if refresh, grant.subject != nil, client.grantTypes.contains(GrantType.refreshToken) {
            let refreshToken = RandomToken.make()
            refreshTokens[refreshToken] = RefreshTokenRecord(
                grantID: grantID, issuedAt: now, expiresAt: now.addingTimeInterval(lifetimes.refreshToken))
            response["refresh_token"] = .string(refreshToken)
        }
        var issued = IssuedTokens(members: response)
        if let subject = grant.subject, scopes.contains("openid") {
            issued.idToken = (
                idTokenClaims(
                    client: client, subject: subject, scopes: scopes, authTime: grant.authTime, acr: grant.acr,
                    nonce: nonce, accessToken: accessToken, now: now),
                keys.signer(for: client.idTokenSigningAlgorithm)
            )
        }
        return issued
    }

    /// The claims of a JWT access token (RFC 9068 §2.2): `sub` is the
    /// client's own id for a client acting for itself; `act` names the
    /// `act` of a delegation (RFC 8693 §4.1: the current actor's `sub`, the
    /// earlier actors nested in it).
    func accessTokenClaims(
        grant: GrantRecord, scopes: [String], audience: String, expiresAt: Date, actor: JSONMemberValue? = nil, now: Date
    )
        -> [String: JSONMemberValue]
    {
        var claims: [String: JSONMemberValue] = [
            "iss": .string(issuer),
            "sub": .string(grant.subject ?? grant.clientID),
            "aud": .string(audience),
            "client_id": .string(grant.clientID),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number(expiresAt.timeIntervalSince1970.rounded(.down)),
            "jti": .string(RandomToken.make(bytes: 16)),
            "scope": .string(scopes.joined(separator: " ")),
        ]
        if let authTime = grant.authTime { claims["auth_time"] = .number(authTime.timeIntervalSince1970.rounded(.down)) }
        if let acr = grant.acr { claims["acr"] = .string(acr) }
        if let jkt = grant.dpopJKT { claims["cnf"] = .object(["jkt": .string(jkt)]) }
        if let actor { claims["act"] = actor }
        return claims
    }

    /// The claims of an ID token (OIDC Core §2) with `at_hash`.
    func idTokenClaims(
        client: ProviderClient, subject: String, scopes: [String], authTime: Date?, acr: String? = nil, nonce: String?,
        accessToken: String?, now: Date
    ) -> [String: JSONMemberValue] {
        var claims = configuration.user(subject: subject)?.claims(for: Set(scopes)) ?? [:]
        claims["iss"] = .string(issuer)
        claims["sub"] = .string(subject)
        claims["aud"] = .string(client.id)
        claims["iat"] = .number(now.timeIntervalSince1970.rounded(.down))
        claims["exp"] = .number(now.addingTimeInterval(configuration.lifetimes.idToken).timeIntervalSince1970.rounded(.down))
        if let authTime { claims["auth_time"] = .number(authTime.timeIntervalSince1970.rounded(.down)) }
        if let acr { claims["acr"] = .string(acr) }
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken {
            let digest = Array(SHA256.hash(data: Array(accessToken.utf8)))
            claims["at_hash"] = .string(Base64URL.encode(digest.prefix(16)))
        }
        return claims
    }
}

/// A token response whose ID token is not signed yet.
struct IssuedTokens: Sendable {
    /// The members of the response, without `id_token`.
    var members: [String: JSONMemberValue]
    /// The ID token's claims and the key to sign them with, when one is due.
    var idToken: (claims: [String: JSONMemberValue], key: SigningKey)?

    /// The response, with the ID token signed (outside the provider's actor).
    func signed() throws -> JSONMemberValue {
        var members = members
        if let idToken { members["id_token"] = .string(try JWSSigner.sign(idToken.claims, with: idToken.key)) }
        return .object(members)
    }
}
#endif
