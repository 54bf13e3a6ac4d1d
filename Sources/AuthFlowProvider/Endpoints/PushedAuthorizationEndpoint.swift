#if EmbeddedProvider  // the EmbeddedProvider package trait
import AuthFlow
import Foundation

/// The pushed authorization request endpoint (RFC 9126 §2): the client posts
/// every authorization parameter, authenticated like a token request, and
/// gets a one-time `request_uri` for the browser.
struct PushedAuthorizationEndpoint: Sendable {
    let state: ProviderState
    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        guard request.method == "POST" else { return .methodNotAllowed("POST") }
        do {
            let (form, client) = try await state.authenticatedForm(request)
            if form["request_uri"] != nil { throw OAuthFailure.invalidRequest("request_uri cannot be pushed (RFC 9126 §2.1)") }
            if let id = form["client_id"], id != client.id { throw OAuthFailure.invalidRequest("client_id differs from the authenticated client") }
            guard let redirectURI = form["redirect_uri"] else { throw OAuthFailure.invalidRequest("redirect_uri is missing") }
            guard RedirectURIMatcher.matches(redirectURI, registered: client.redirectURIs) else {
                throw OAuthFailure.invalidRequest("redirect_uri is not registered for this client")
            }
            _ = try AuthorizeEndpoint.validate(form, client: client)
            // Kept without client authentication: the authorize endpoint reads it as the request.
            var parameters = (FormEncoding.decode(utf8: request.body) ?? []).filter {
                !["client_secret", "client_assertion", "client_assertion_type", "client_id"].contains($0.0)
            }
            parameters.append(("client_id", client.id))
            let requestURI = await state.pushAuthorizationRequest(parameters, clientID: client.id,
                                                                  expiresAt: Date().addingTimeInterval(state.configuration.lifetimes.pushedRequest))
            return .json(.object(["request_uri": .string(requestURI), "expires_in": .number(state.configuration.lifetimes.pushedRequest.rounded())]),
                         status: 201, noStore: true)
        } catch let failure as OAuthFailure {
            return failure.response
        } catch {
            return OAuthFailure("server_error", "the provider failed", status: 500).response
        }
    }
}
#endif
