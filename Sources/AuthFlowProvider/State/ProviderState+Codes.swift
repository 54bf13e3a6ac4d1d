#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import Crypto
import Foundation

extension ProviderState {
    /// Issues an authorization code for a signed-in user.
    func issueCode(
        clientID: String, subject: String, scopes: [String], authTime: Date, redirectURI: String,
        challenge: String, nonce: String?, dpopJKT: String? = nil, resource: String? = nil, now: Date = Date()
    ) -> String {
        sweep(now: now)
        let grantID = addGrant(GrantRecord(clientID: clientID, subject: subject, scopes: scopes, authTime: authTime, resource: resource))
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
        guard PKCECheck.isValidVerifier(verifier) else {
            throw OAuthFailure.invalidGrant("code_verifier must be 43 to 128 unreserved characters")
        }
        guard SecretComparison.equal(PKCECheck.challenge(for: verifier), record.challenge) else {
            throw OAuthFailure.invalidGrant("code_verifier does not match the code_challenge")
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

/// PKCE rules (RFC 7636): S256 only.
enum PKCECheck {
    /// 43…128 characters of `A-Z a-z 0-9 - . _ ~` (RFC 7636 §4.1).
    static func isValidVerifier(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy(isUnreserved)
    }

    /// A S256 challenge is the base64url SHA-256 of a verifier: 43 characters.
    static func isValidChallenge(_ value: String) -> Bool {
        value.utf8.count == 43 && value.utf8.allSatisfy(isUnreserved)
    }

    /// `BASE64URL(SHA256(verifier))`.
    static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Array(verifier.utf8)))
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
#endif
