#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Dynamic client registration (RFC 7591 §3), open to anyone: a POST of
/// JSON client metadata (at most the server's 64 KiB request limit) is
/// checked by ``ClientMetadataRules`` and answered 201 with the metadata as
/// registered, a new `client_id` and `client_id_issued_at`, and a
/// `client_secret` (that never expires) only for a method that uses one.
/// The client can be used at once. Errors are 400 with RFC 7591 §3.2.2's
/// `invalid_redirect_uri` or `invalid_client_metadata`.
struct RegistrationEndpoint: Sendable {
    let state: ProviderState

    func handle(_ request: ProviderRequest) async -> ProviderResponse {
        do throws(OAuthFailure) {
            guard state.configuration.allowsDynamicRegistration else {
                // Not advertised either; answered as an unknown path would be, but in JSON.
                return .json(.object(["error": .string("not_found")]), status: 404)
            }
            guard request.mediaType == "application/json" else {
                throw ClientMetadataRules.metadata("the body must be application/json")
            }
            guard case .object(let object)? = try? JSONMemberValue.parseStrictly(request.body) else {
                throw ClientMetadataRules.metadata("the body is not a JSON object")
            }
            if object["client_id"] != nil || object["client_secret"] != nil {
                throw ClientMetadataRules.metadata("client_id and client_secret are assigned by the server")
            }
            let id = RandomToken.make(bytes: 16)
            let rules = ClientMetadataRules(defaultScopes: state.dynamicClientScopes)
            var result = try rules.client(from: object, id: id) { $0.usesSecret ? RandomToken.make() : nil }
            try await state.register(result.client)
            result.metadata["client_id_issued_at"] = .number(Date().timeIntervalSince1970.rounded(.down))
            if let secret = result.client.secret {
                result.metadata["client_secret"] = .string(secret)
                result.metadata["client_secret_expires_at"] = .number(0)
            }
            return .json(.object(result.metadata), status: 201, noStore: true)
        } catch {
            return error.response
        }
    }
}
#endif
