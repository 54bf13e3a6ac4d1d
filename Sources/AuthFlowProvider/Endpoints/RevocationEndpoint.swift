#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// Token revocation (RFC 7009 §2): 200 for every valid request, whether or
/// not the token was known.
struct RevocationEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do throws(OAuthFailure) {
            let (form, client) = try await state.authenticatedForm(request)
            let token = try form.required("token")
            await state.revoke(token, hint: form["token_type_hint"], client: client)
            return ProviderResponse(status: 200, headers: [("Cache-Control", "no-store")], body: [])
        } catch {
            return error.response
        }
    }
}
#endif
