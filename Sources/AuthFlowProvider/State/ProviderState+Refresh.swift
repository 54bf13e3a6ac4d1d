#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// The refresh token grant (RFC 6749 §6) with rotation: each refresh
    /// token works once and is replaced; presenting a rotated one again is a
    /// replay, which revokes the whole family (every token of the grant).
    func refresh(
        _ token: String, client: ProviderClient, scopes requested: [String]?, dpopJKT: String? = nil, resource: String? = nil,
        now: Date = Date()
    ) throws -> IssuedTokens {
        guard var record = refreshTokens[token], let grant = grants[record.grantID] else {
            throw OAuthFailure.invalidGrant("the refresh token is unknown")
        }
        guard grant.clientID == client.id else { throw OAuthFailure.invalidGrant("the refresh token was issued to another client") }
        guard !record.rotated else {
            revokeGrant(record.grantID, reason: "refresh token replayed")
            throw OAuthFailure.invalidGrant("the refresh token was already used; its family is revoked")
        }
        guard !record.revoked, !grant.revoked else { throw OAuthFailure.invalidGrant("the refresh token is revoked") }
        guard record.expiresAt > now else { throw OAuthFailure.invalidGrant("the refresh token has expired") }
        if let requested, !Set(requested).isSubset(of: Set(grant.scopes)) {
            throw OAuthFailure.invalidScope("a refresh cannot widen the granted scope")
        }
        // RFC 9449 §5: a DPoP-bound refresh token needs a proof with the same key.
        if let bound = grant.dpopJKT, bound != dpopJKT {
            throw OAuthFailure.invalidGrant(
                dpopJKT == nil
                    ? "the refresh token is DPoP-bound; a DPoP proof is required"
                    : "the refresh token is bound to another DPoP key")
        }
        // RFC 8707 §2.2: only a resource the grant was given for.
        let audience = try ResourceIndicator.check(resource, granted: grant.resource)
        record.rotated = true
        refreshTokens[token] = record
        // A narrower scope applies to the new access token; the new refresh
        // token keeps the grant's scope (RFC 6749 §6).
        return try issueTokens(grantID: record.grantID, nonce: nil, refresh: true, scopes: requested, resource: audience, now: now)
    }
}
#endif
