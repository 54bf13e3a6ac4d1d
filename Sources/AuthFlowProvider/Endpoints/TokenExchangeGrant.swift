#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// The token exchange grant at the token endpoint (RFC 8693 §2): an access
/// token for another target, in exchange for an access token or ID token
/// this provider issued to the same client.
///
/// The rules, each refused with the error RFC 8693 §2.2.2 names:
/// - the client needs a rule in ``ProviderConfiguration/tokenExchangePolicy``
///   (`unauthorized_client`);
/// - exactly one target, an `audience` or a `resource`, that the rule lists
///   (`invalid_target`); a repeated parameter is `invalid_request`;
/// - the subject token (and actor token) must verify and belong to the
///   client, and a DPoP-bound subject token needs a proof with its key
///   (`invalid_request`, `invalid_grant` for the key);
/// - only access tokens are issued (`requested_token_type` access_token or
///   absent), or identity assertions (``IdentityAssertionGrant``), with no more scope than the subject token has
///   (`invalid_scope`), never `openid` or `offline_access`;
/// - an actor token only when the rule allows delegation; the issued token
///   then carries `act` with the actor's `sub`.
struct TokenExchangeGrant: Sendable {
    let state: ProviderState

    static let accessTokenType = TokenTypeIdentifier.accessToken.rawValue
    static let idTokenType = TokenTypeIdentifier.idToken.rawValue

    func handle(_ form: StrictForm, client: ProviderClient, dpopJKT: String?) async throws -> IssuedTokens {
        if form["requested_token_type"] == TokenTypeIdentifier.idJAG.rawValue {
            return try await IdentityAssertionGrant(state: state).issue(form, client: client)
        }
        guard let rule = state.configuration.tokenExchangePolicy.rule(for: client.id) else {
            throw OAuthFailure.unauthorizedClient("the client may not exchange tokens")
        }
        if let requested = form["requested_token_type"], requested != Self.accessTokenType {
            throw OAuthFailure.invalidRequest("only access tokens and identity assertions are issued by token exchange")
        }
        let target = try Self.target(form, rule: rule)
        let subjectToken = try form.required("subject_token")
        let subjectType = try form.required("subject_token_type")
        let party = try await state.exchangedParty(subjectToken, type: subjectType, role: "subject", client: client)
        if let bound = party.dpopJKT, bound != dpopJKT {
            throw OAuthFailure.invalidGrant(
                dpopJKT == nil
                    ? "the subject token is DPoP-bound; a DPoP proof is required"
                    : "the subject token is bound to another DPoP key")
        }
        var actor: String?
        switch (form["actor_token"], form["actor_token_type"]) {
        case (nil, nil): actor = nil
        case (let token?, let type?):
            guard rule.allowsDelegation else { throw OAuthFailure.invalidRequest("the client may not present an actor token") }
            actor = try await state.exchangedParty(token, type: type, role: "actor", client: client).subject
        case (nil, _?): throw OAuthFailure.invalidRequest("actor_token_type without actor_token")
        case (_?, nil): throw OAuthFailure.invalidRequest("the actor_token_type parameter is missing")
        }
        let scopes = try Self.scopes(form.scopes, party: party, client: client)
        return try await state.issueExchanged(for: party, client: client, scopes: scopes, target: target, actor: actor, dpopJKT: dpopJKT)
    }

    /// The one target of the request, if the client's rule lists it.
    static func target(_ form: StrictForm, rule: TokenExchangePolicy.Rule) throws(OAuthFailure) -> String {
        let resource = try ResourceIndicator.parse(form)
        switch (form["audience"], resource) {
        case (let audience?, nil):
            guard rule.audiences.contains(audience) else {
                throw OAuthFailure("invalid_target", "the client may not exchange tokens for this audience")
            }
            return audience
        case (nil, let resource?):
            guard rule.resources.contains(resource) else {
                throw OAuthFailure("invalid_target", "the client may not exchange tokens for this resource")
            }
            return resource
        case (nil, nil): throw OAuthFailure("invalid_target", "name the audience or the resource the token is for")
        case (_?, _?): throw OAuthFailure("invalid_target", "name either an audience or a resource, not both")
        }
    }

    /// The scopes of the issued token: those asked for, else the subject
    /// token's; never more than the subject token has (an ID token: than
    /// the client may have), never `openid` or `offline_access`.
    static func scopes(_ requested: [String]?, party: ProviderState.ExchangedParty, client: ProviderClient) throws(OAuthFailure)
        -> [String]
    {
        let userOnly: Set<String> = ["openid", "offline_access"]
        let available = party.grantID == nil ? client.scopes : Set(party.scopes)
        guard let requested else { return party.scopes.filter { !userOnly.contains($0) } }
        if let scope = requested.first(where: { userOnly.contains($0) || !available.contains($0) }) {
            throw OAuthFailure.invalidScope("the scope \(scope) cannot be granted by token exchange")
        }
        return requested
    }
}
#endif
