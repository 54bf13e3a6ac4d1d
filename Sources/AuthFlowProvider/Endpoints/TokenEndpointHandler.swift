#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import Logging

/// The token endpoint (RFC 6749 §3.2, §4.1.3, §4.4, §6; RFC 8628 §3.4; RFC 8693 §2; RFC 7523 §2.1; OpenID CIBA Core 1.0 §10.1).
/// Every answer, success or error, carries `Cache-Control: no-store`.
struct TokenEndpointHandler: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do {
            let (form, client) = try await state.authenticatedForm(request)
            let dpopJKT = try await state.checkDPoPProof(request, path: EndpointPaths.token)
            let grantType = try form.required("grant_type")
            guard GrantType.all.contains(grantType) else {
                throw OAuthFailure("unsupported_grant_type", "the grant type \(grantType) is not supported")
            }
            guard client.grantTypes.contains(grantType) else {
                throw OAuthFailure.unauthorizedClient("the client may not use \(grantType)")
            }
            let issued = try await grant(grantType, form: form, client: client, dpopJKT: dpopJKT)
            return .json(try issued.signed(), noStore: true)
        } catch let failure as OAuthFailure {
            return failure.response
        } catch let failure as DPoPFailure {
            return failure.tokenEndpointResponse
        } catch {
            state.logger.error("token endpoint failed", metadata: ["error": "\(type(of: error))"])
            return OAuthFailure("server_error", "the provider failed", status: 500).response
        }
    }

    private func grant(_ grantType: String, form: StrictForm, client: ProviderClient, dpopJKT: String?) async throws -> IssuedTokens {
        switch grantType {
        case GrantType.authorizationCode:
            let resource = try ResourceIndicator.parse(form)
            let code = try form.required("code")
            let redirectURI = try form.required("redirect_uri")
            guard let verifier = form["code_verifier"] else { throw OAuthFailure.invalidRequest("code_verifier is required (PKCE)") }
            return try await state.redeemCode(
                code, client: client, redirectURI: redirectURI, verifier: verifier, dpopJKT: dpopJKT, resource: resource)
        case GrantType.refreshToken:
            return try await state.refresh(
                try form.required("refresh_token"), client: client, scopes: form.scopes, dpopJKT: dpopJKT,
                resource: try ResourceIndicator.parse(form))
        case GrantType.tokenExchange:
            return try await TokenExchangeGrant(state: state).handle(form, client: client, dpopJKT: dpopJKT)
        case GrantType.clientCredentials:
            guard client.isConfidential else { throw OAuthFailure.unauthorizedClient("client_credentials needs a confidential client") }
            let scopes = form.scopes ?? []
            if let scope = scopes.first(where: { !client.scopes.contains($0) || $0 == "openid" || $0 == "offline_access" }) {
                throw OAuthFailure.invalidScope("the scope \(scope) cannot be granted to a client acting for itself")
            }
            return try await state.clientCredentials(
                client: client, scopes: scopes, dpopJKT: dpopJKT, resource: try ResourceIndicator.parse(form))
        case GrantType.jwtBearer:
            guard !state.configuration.trustedIdentityProviders.isEmpty else {
                throw OAuthFailure("unsupported_grant_type", "this provider accepts no JWT bearer grants: it trusts no identity provider")
            }
            return try await IdentityAssertionGrant(state: state).redeem(form, client: client, dpopJKT: dpopJKT)
        case GrantType.ciba:
            return try await state.pollBackchannel(
                try form.required("auth_req_id"), client: client, dpopJKT: dpopJKT, resource: try ResourceIndicator.parse(form))
        default:
            return try await state.pollDevice(
                try form.required("device_code"), client: client, dpopJKT: dpopJKT, resource: try ResourceIndicator.parse(form))
        }
    }
}
#endif
