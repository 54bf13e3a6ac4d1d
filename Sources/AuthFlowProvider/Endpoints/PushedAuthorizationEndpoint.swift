#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pushed authorization request endpoint (RFC 9126 §2): the client posts
/// every authorization parameter, authenticated like a token request, and
/// gets a one-time `request_uri` for the browser.
///
/// A DPoP proof in the `DPoP` header binds the code to the proof's key
/// (RFC 9449 §10.1), as `dpop_jkt` does; when both are sent, they must name
/// the same key.
struct PushedAuthorizationEndpoint: Sendable {
    let state: ProviderState
    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do {
            let (form, client) = try await state.authenticatedForm(request)
            let proofJKT = try await state.checkDPoPProof(request, path: EndpointPaths.pushedAuthorization)
            if let proofJKT, let named = form["dpop_jkt"], named != proofJKT {
                throw OAuthFailure("invalid_dpop_proof", "dpop_jkt is not the thumbprint of the DPoP proof's key (RFC 9449 §10.1)")
            }
            if form["request_uri"] != nil { throw OAuthFailure.invalidRequest("request_uri cannot be pushed (RFC 9126 §2.1)") }
            if let id = form["client_id"], id != client.id {
                throw OAuthFailure.invalidRequest("client_id differs from the authenticated client")
            }
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
            if let proofJKT, form["dpop_jkt"] == nil { parameters.append(("dpop_jkt", proofJKT)) }
            let requestURI = await state.pushAuthorizationRequest(
                parameters, clientID: client.id,
                expiresAt: Date().addingTimeInterval(state.configuration.lifetimes.pushedRequest))
            return .json(
                .object(["request_uri": .string(requestURI), "expires_in": .number(state.configuration.lifetimes.pushedRequest.rounded())]),
                status: 201, noStore: true)
        } catch let failure as OAuthFailure {
            return failure.response
        } catch let failure as DPoPFailure {
            return failure.tokenEndpointResponse
        } catch {
            return OAuthFailure("server_error", "the provider failed", status: 500).response
        }
    }
}
#endif
