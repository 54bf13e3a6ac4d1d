#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// What a live token stands for: an access token, or (for introspection)
    /// a refresh token; nil when unknown, expired, rotated or revoked.
    func lookup(_ token: String, includeRefresh: Bool, now: Date = Date()) -> TokenInfo? {
        if let record = accessTokens[token], !record.revoked, record.expiresAt > now, let grant = grants[record.grantID], !grant.revoked {
            return TokenInfo(
                clientID: grant.clientID, subject: grant.subject, scopes: record.scopes,
                issuedAt: record.issuedAt, expiresAt: record.expiresAt, kind: "access_token", dpopJKT: grant.dpopJKT,
                audience: record.audience, actor: record.actor)
        }
        if includeRefresh, let record = refreshTokens[token], !record.revoked, !record.rotated, record.expiresAt > now,
            let grant = grants[record.grantID], !grant.revoked
        {
            return TokenInfo(
                clientID: grant.clientID, subject: grant.subject, scopes: grant.scopes,
                issuedAt: record.issuedAt, expiresAt: record.expiresAt, kind: "refresh_token")
        }
        return nil
    }

    /// Revocation (RFC 7009 §2.1): a refresh token takes its whole grant with
    /// it (every access token issued from it); an access token only itself.
    /// Tokens of other clients and unknown tokens are left alone, and the
    /// answer is the same (no oracle).
    func revoke(_ token: String, hint: String?, client: ProviderClient) {
        let refreshFirst = hint == "refresh_token"
        for kind in refreshFirst ? ["refresh_token", "access_token"] : ["access_token", "refresh_token"] {
            if kind == "access_token", let record = accessTokens[token], grants[record.grantID]?.clientID == client.id {
                accessTokens[token]?.revoked = true
                return
            }
            if kind == "refresh_token", let record = refreshTokens[token], grants[record.grantID]?.clientID == client.id {
                refreshTokens[token]?.revoked = true
                revokeGrant(record.grantID, reason: "refresh token revoked")
                return
            }
        }
    }

    /// The client-credentials grant (RFC 6749 §4.4): an access token, no
    /// refresh or ID token; bound to `dpopJKT` (`cnf.jkt`) when the request
    /// carried a DPoP proof (RFC 9449 §5).
    func clientCredentials(client: ProviderClient, scopes: [String], dpopJKT: String? = nil, resource: String? = nil) throws
        -> IssuedTokens
    {
        let grantID = addGrant(
            GrantRecord(clientID: client.id, subject: nil, scopes: scopes, authTime: nil, dpopJKT: dpopJKT, resource: resource))
        return try issueTokens(grantID: grantID, nonce: nil, refresh: false)
    }
}
#endif
