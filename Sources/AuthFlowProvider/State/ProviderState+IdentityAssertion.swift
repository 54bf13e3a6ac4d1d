#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderState {
    /// Signs an identity assertion (ID-JAG) for the user of `subjectToken`,
    /// an ID token this provider issued to `client`, as `rule` allows.
    func issueIdentityAssertion(
        subjectToken: String, client: ProviderClient, rule: IdentityAssertionPolicy.Rule, resource: String?, scopes: [String],
        lifetime: TimeInterval, now: Date = Date()
    ) throws -> IssuedTokens {
        let party = try exchangedParty(subjectToken, type: TokenExchangeGrant.idTokenType, role: "subject", client: client, now: now)
        // Never past the ID token it stands for (exchangedParty checked that it has not expired).
        let expiresAt = min(now.addingTimeInterval(lifetime), party.expiresAt)
        var claims: [String: JSONMemberValue] = [
            "iss": .string(issuer),
            "sub": .string(party.subject),
            "aud": .string(rule.authorizationServer),
            "client_id": .string(rule.clientIDAtAuthorizationServer),
            "jti": .string(RandomToken.make(bytes: 16)),
            "iat": .number(now.timeIntervalSince1970.rounded(.down)),
            "exp": .number(expiresAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let resource { claims["resource"] = .string(resource) }
        if !scopes.isEmpty { claims["scope"] = .string(scopes.joined(separator: " ")) }
        if let authTime = party.authTime { claims["auth_time"] = .number(authTime.timeIntervalSince1970.rounded(.down)) }
        let assertion = try JWSSigner.sign(claims, with: keys.signer(for: .es256), type: IdentityAssertion.type)
        return IssuedTokens(members: [
            "access_token": .string(assertion),
            "issued_token_type": .string(TokenTypeIdentifier.idJAG.rawValue),
            "token_type": .string("N_A"),
            "expires_in": .number(expiresAt.timeIntervalSince(now).rounded(.down)),
        ])
    }

    /// The verifier of identity assertions from `issuer`, a trusted identity
    /// provider: its keys, discovered on first use, and this provider as the audience.
    func identityAssertionVerifier(for issuer: String) async throws -> JWTVerifier {
        if let known = identityAssertionVerifiers[issuer] { return known }
        let verifier = try await JWTVerifier.discover(issuer: Issuer(issuer), audience: self.issuer, timeout: 10, logger: logger)
        identityAssertionVerifiers[issuer] = verifier
        return verifier
    }

    /// The access token for a verified identity assertion, used once: a
    /// second use of its `jti` before it expires is `invalid_grant`.
    func redeemIdentityAssertion(
        _ assertion: IdentityAssertion, client: ProviderClient, scopes: [String], audience: String?, dpopJKT: String?,
        rememberedUntil: Date, now: Date = Date()
    ) throws -> IssuedTokens {
        guard useOnce("id-jag \(assertion.issuer) \(assertion.identifier)", until: rememberedUntil, now: now) else {
            throw OAuthFailure.invalidGrant("the identity assertion was already used (jti)")
        }
        let grantID = addGrant(
            GrantRecord(
                clientID: client.id, subject: assertion.subject, scopes: scopes, authTime: nil, dpopJKT: dpopJKT, resource: audience))
        return try issueTokens(grantID: grantID, nonce: nil, refresh: false, resource: audience, now: now)
    }
}
#endif
