#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// Issues an authorization code for a signed-in user.
    func issueCode(
        clientID: String, subject: String, scopes: [String], authTime: Date, redirectURI: String,
        challenge: String, nonce: String?, dpopJKT: String? = nil, resource: String? = nil, acr: String? = nil, now: Date = Date()
    ) -> String {
        sweep(now: now)
        let grantID = addGrant(
            GrantRecord(clientID: clientID, subject: subject, scopes: scopes, authTime: authTime, resource: resource, acr: acr))
        let code = RandomToken.make()
        codes[code] = CodeRecord(
            grantID: grantID, clientID: clientID, redirectURI: redirectURI, challenge: challenge,
            nonce: nonce, expiresAt: now.addingTimeInterval(configuration.lifetimes.authorizationCode), dpopJKT: dpopJKT)
        return code
    }

    /// Redeems a code (RFC 6749 §4.1.3, RFC 7636 §4.6): once only, by the
    /// client it was issued to, with the same redirect URI and the verifier
    /// of its challenge, before it expires. A second use revokes every token
    /// the first one issued (RFC 6749 §4.1.2).
    func redeemCode(
        _ code: String, client: ProviderClient, redirectURI: String, verifier: String, dpopJKT: String? = nil,
        resource: String? = nil, now: Date = Date()
    ) throws -> IssuedTokens {
        guard var record = codes[code] else { throw OAuthFailure.invalidGrant("the authorization code is unknown") }
        guard !record.redeemed else {
            revokeGrant(record.grantID, reason: "authorization code reused")
            throw OAuthFailure.invalidGrant("the authorization code was already used; the tokens issued for it are revoked")
        }
        guard record.clientID == client.id else { throw OAuthFailure.invalidGrant("the authorization code was issued to another client") }
        guard record.expiresAt > now else { throw OAuthFailure.invalidGrant("the authorization code has expired") }
        guard record.redirectURI == redirectURI else {
            throw OAuthFailure.invalidGrant("redirect_uri differs from the one in the authorization request")
        }
        switch AuthorizationRequest.PKCE.verify(verifier, against: record.challenge) {
        case .matches: break
        case .malformedVerifier: throw OAuthFailure.invalidGrant("code_verifier must be 43 to 128 unreserved characters")
        case .mismatch: throw OAuthFailure.invalidGrant("code_verifier does not match the code_challenge")
        }
        if let bound = record.dpopJKT, bound != dpopJKT {
            throw OAuthFailure.invalidGrant(
                dpopJKT == nil
                    ? "the authorization request named a DPoP key (dpop_jkt); a DPoP proof is required"
                    : "the DPoP proof's key is not the dpop_jkt of the authorization request")
        }
        let audience = try ResourceIndicator.check(resource, granted: grants[record.grantID]?.resource)
        record.redeemed = true
        codes[code] = record
        grants[record.grantID]?.dpopJKT = dpopJKT
        return try issueTokens(grantID: record.grantID, nonce: record.nonce, refresh: true, resource: audience, now: now)
    }
}
#endif
