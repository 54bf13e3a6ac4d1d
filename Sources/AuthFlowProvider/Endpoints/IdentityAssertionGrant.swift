#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Identity Assertion JWT Authorization Grants (ID-JAG,
/// draft-ietf-oauth-identity-assertion-authz-grant) at the token endpoint,
/// in both of the provider's roles.
///
/// **As the enterprise identity provider** (``issue(_:client:)``, a token
/// exchange asking for `urn:ietf:params:oauth:token-type:id-jag`): the
/// `subject_token` is an ID token this provider issued to the client, not
/// expired; `audience` names the authorization server and `resource`
/// optionally its API, as ``ProviderConfiguration/identityAssertionPolicy``
/// allows (`invalid_target`); the scopes the policy allows
/// (`invalid_scope`). The grant is a JWT of type `oauth-id-jag+jwt` naming
/// the user (`sub`), the server (`aud`), the client's ID there
/// (`client_id`), the resource and scopes, with a `jti`, living the policy's
/// lifetime and never past the ID token.
///
/// **As the resource authorization server** (``redeem(_:client:dpopJKT:)``,
/// the JWT bearer grant): a confidential client (`unauthorized_client`)
/// presents an `assertion` from one of
/// ``ProviderConfiguration/trustedIdentityProviders``; it must verify by
/// the engine's `IdentityAssertion` rules with that provider's
/// keys, for this provider (`aud`), this client (`client_id`), the
/// `resource` asked for, living at most five minutes, and be used once
/// (`jti`); anything else is `invalid_grant`. The access token names the
/// identity provider's user and the grant's resource; no refresh token (a
/// client asks the identity provider for a new grant instead).
struct IdentityAssertionGrant: Sendable {
    let state: ProviderState

    /// The grant profile an authorization server lists in its metadata
    /// (`authorization_grant_profiles_supported`).
    static let profile = "urn:ietf:params:oauth:grant-profile:id-jag"

    func issue(_ form: StrictForm, client: ProviderClient) async throws -> IssuedTokens {
        let audience = try form.required("audience")
        let policy = state.configuration.identityAssertionPolicy
        guard let rule = policy.rule(for: client.id, authorizationServer: audience) else {
            throw OAuthFailure("invalid_target", "the client may not get identity assertions for this authorization server")
        }
        // Without a resource, the rule's only one; a rule that lists several needs one named. As the rule writes it.
        let resource: String?
        switch (try ResourceIndicator.parse(form), rule.resources.count) {
        case (nil, 0): resource = nil
        case (nil, 1): resource = rule.resources.first
        case (nil, _): throw OAuthFailure("invalid_target", "name the resource the identity assertion is for")
        case (let named?, _):
            guard let allowed = rule.resources.first(where: { $0.hasSameBytes(as: named) }) else {
                throw OAuthFailure("invalid_target", "the client may not get identity assertions for this resource")
            }
            resource = allowed
        }
        guard form["subject_token_type"] == TokenExchangeGrant.idTokenType else {
            throw OAuthFailure.invalidRequest("an identity assertion is issued for an ID token of this provider (subject_token_type)")
        }
        guard form["actor_token"] == nil else { throw OAuthFailure.invalidRequest("an identity assertion takes no actor token") }
        // Without a scope asked for, the rule's: a grant never leaves its scopes to the authorization server.
        let scopes = try (form.scopes ?? rule.scopes.sorted()).map { scope in
            guard let allowed = rule.scopes.first(where: { $0.hasSameBytes(as: scope) }) else {
                throw OAuthFailure.invalidScope("the scope \(scope) cannot be asserted to this authorization server")
            }
            return allowed
        }
        return try await state.issueIdentityAssertion(
            subjectToken: try form.required("subject_token"), client: client, rule: rule, resource: resource, scopes: scopes,
            lifetime: policy.lifetime)
    }

    func redeem(_ form: StrictForm, client: ProviderClient, dpopJKT: String?) async throws -> IssuedTokens {
        // draft-ietf-oauth-identity-assertion-authz-grant §9.1: only a client that authenticates.
        guard client.isConfidential else { throw OAuthFailure.unauthorizedClient("the JWT bearer grant needs a confidential client") }
        let assertion = try form.required("assertion")
        guard let issuer = (try? CompactJWS(assertion))?.claims["iss"]?.stringValue,
            state.configuration.trustedIdentityProviders.contains(where: { $0.hasSameBytes(as: issuer) })
        else { throw OAuthFailure.invalidGrant("the assertion is not an identity assertion from a trusted identity provider") }
        let resource = try ResourceIndicator.parse(form)
        let verifier: JWTVerifier
        do {
            verifier = try await state.identityAssertionVerifier(for: issuer)
        } catch {
            throw OAuthFailure("temporarily_unavailable", "the identity provider's keys could not be read", status: 503)
        }
        let verified: IdentityAssertion
        do {
            verified = try await IdentityAssertion.verify(assertion, with: verifier, clientID: client.id, resource: resource)
        } catch let error as AuthFlowError {
            throw OAuthFailure.invalidGrant("the identity assertion was refused: \(error.message)")
        }
        let audience = resource ?? verified.resources.first
        // No more than the grant names (none when it names none), and than the client may have.
        let requested = form.scopes ?? verified.scopes
        let userOnly: Set<String> = ["openid", "offline_access"]
        if let scope = requested.first(where: {
            userOnly.contains($0) || !client.scopes.contains($0) || !verified.scopes.contains($0)
        }) {
            throw OAuthFailure.invalidScope("the scope \(scope) cannot be granted for this identity assertion")
        }
        // Remembered for as long as the verifier would still take it (exp plus its leeway).
        return try await state.redeemIdentityAssertion(
            verified, client: client, scopes: requested, audience: audience, dpopJKT: dpopJKT,
            rememberedUntil: verified.expiresAt.addingTimeInterval(verifier.leeway))
    }
}
#endif
