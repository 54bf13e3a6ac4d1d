#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// A subject or actor token the provider accepted for an exchange.
    struct ExchangedParty: Sendable {
        /// The user, or the client for a client acting for itself.
        let subject: String
        /// The scopes the token carries (none for an ID token).
        let scopes: [String]
        let authTime: Date?
        /// The grant an access token belongs to; nil for an ID token.
        let grantID: String?
        /// The DPoP key the token is bound to.
        let dpopJKT: String?
        /// When the token expires: nothing exchanged for it outlives it.
        let expiresAt: Date
        /// The token's own `act`, when it was issued to an actor already.
        let actor: JSONMemberValue?
    }

    /// Verifies a token presented in a token exchange (RFC 8693 §2.1): an
    /// access token this provider issued and still honours, or an ID token
    /// it signed that has not expired; either issued to `client`. Anything
    /// else is `invalid_request` (RFC 8693 §2.2.2).
    func exchangedParty(_ token: String, type: String, role: String, client: ProviderClient, now: Date = Date()) throws(OAuthFailure)
        -> ExchangedParty
    {
        switch type {
        case TokenExchangeGrant.accessTokenType:
            guard let record = accessTokens[token], !record.revoked, record.expiresAt > now, let grant = grants[record.grantID],
                !grant.revoked
            else { throw .invalidRequest("the \(role) token is not an active access token of this provider") }
            guard grant.clientID == client.id else { throw .invalidRequest("the \(role) token was issued to another client") }
            return ExchangedParty(
                subject: grant.subject ?? grant.clientID, scopes: record.scopes, authTime: grant.authTime, grantID: record.grantID,
                dpopJKT: grant.dpopJKT, expiresAt: record.expiresAt, actor: record.actor)
        case TokenExchangeGrant.idTokenType:
            guard (try? CompactJWS(token))?.header["typ"]?.stringValue ?? "JWT" == "JWT",
                let claims = JWSSigner.claims(of: token, signedBy: keys)
            else { throw .invalidRequest("the \(role) token is not an ID token signed by this provider") }
            guard claims["iss"]?.stringValue == issuer, let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
                throw .invalidRequest("the \(role) token is not an ID token of this issuer")
            }
            let audience = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard audience.contains(client.id) else { throw .invalidRequest("the \(role) token was issued to another client") }
            guard let exp = claims["exp"]?.numberValue, Date(timeIntervalSince1970: exp) > now else {
                throw .invalidRequest("the \(role) token has expired")
            }
            return ExchangedParty(
                subject: subject, scopes: [], authTime: claims["auth_time"]?.numberValue.map(Date.init(timeIntervalSince1970:)),
                grantID: nil, dpopJKT: nil, expiresAt: Date(timeIntervalSince1970: exp), actor: nil)
        default:
            throw .invalidRequest("the \(role)_token_type is not supported; use an access token or an ID token")
        }
    }

    /// Issues the access token of an accepted exchange for `target`: under
    /// the subject access token's grant (so that revoking that grant revokes
    /// it too, and a DPoP binding carries over), or under a new grant for an
    /// ID token; with `act` naming `actor` when there is one (the subject
    /// token's own actors nested in it), and never outliving the subject token.
    func issueExchanged(
        for party: ExchangedParty, client: ProviderClient, scopes: [String], target: String, actor: String?, dpopJKT: String?,
        now: Date = Date()
    ) throws -> IssuedTokens {
        // A token about to expire is not worth exchanging: what it gave would expire at once.
        guard party.expiresAt.timeIntervalSince(now) >= 5 else {
            throw OAuthFailure.invalidRequest("the subject token expires within seconds; exchange a fresh one")
        }
        let grantID =
            party.grantID
            ?? addGrant(
                GrantRecord(
                    clientID: client.id, subject: party.subject, scopes: scopes, authTime: party.authTime, dpopJKT: dpopJKT,
                    resource: target))
        // The new actor first, the subject token's own actors nested in it (RFC 8693 §4.1); or the subject's chain as it was.
        let act: JSONMemberValue? =
            actor.map { actor in .object(["sub": .string(actor)].merging(party.actor.map { ["act": $0] } ?? [:]) { new, _ in new }) }
            ?? party.actor
        var issued = try issueTokens(
            grantID: grantID, nonce: nil, refresh: false, scopes: scopes, resource: target, actor: act, notAfter: party.expiresAt, now: now)
        issued.members["issued_token_type"] = .string(TokenExchangeGrant.accessTokenType)
        return issued
    }
}
#endif
