#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// OpenID Connect Discovery 1.0 §3 and RFC 8414 §2 metadata (one document
/// for both), and the JWK Set.
struct DiscoveryEndpoint: Sendable {
    let state: ProviderState

    func metadata() async -> ProviderResponse {
        let issuer = await state.issuer
        let configuration = state.configuration
        func url(_ path: String) -> JSONMemberValue { .string(issuer + path) }
        func strings(_ values: [String]) -> JSONMemberValue { .array(values.map(JSONMemberValue.string)) }
        let scopes = state.supportedScopes.sorted()
        let authMethods = ProviderClient.Authentication.allCases.map(\.rawValue)
        // Exactly what the checks accept: client assertions (both methods) and DPoP proofs.
        let assertionAlgorithms = strings(ClientAssertionCheck.asymmetric.union(ClientAssertionCheck.symmetric).sorted())
        var document: [String: JSONMemberValue] = [
            "issuer": .string(issuer),
            "authorization_endpoint": url(EndpointPaths.authorize),
            "token_endpoint": url(EndpointPaths.token),
            "userinfo_endpoint": url(EndpointPaths.userinfo),
            "jwks_uri": url(EndpointPaths.jwks),
            "revocation_endpoint": url(EndpointPaths.revoke),
            "introspection_endpoint": url(EndpointPaths.introspect),
            "end_session_endpoint": url(EndpointPaths.endSession),
            "device_authorization_endpoint": url(EndpointPaths.deviceAuthorization),
            "pushed_authorization_request_endpoint": url(EndpointPaths.pushedAuthorization),
            "backchannel_authentication_endpoint": url(EndpointPaths.backchannelAuthentication),
            // Push mode is not offered: FAPI-CIBA forbids it (tokens sent to an endpoint on the network).
            "backchannel_token_delivery_modes_supported": strings(["poll", "ping"]),
            "backchannel_user_code_parameter_supported": .bool(false),
            "require_pushed_authorization_requests": .bool(false),
            "scopes_supported": strings(scopes),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query"]),
            // The JWT bearer grant only for identity assertions from trusted identity providers.
            "grant_types_supported": strings(
                GrantType.all.filter { $0 != GrantType.jwtBearer || !configuration.trustedIdentityProviders.isEmpty }),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(SigningAlgorithm.allCases.map(\.rawValue)),
            "token_endpoint_auth_methods_supported": strings(authMethods),
            "token_endpoint_auth_signing_alg_values_supported": assertionAlgorithms,
            "revocation_endpoint_auth_methods_supported": strings(authMethods),
            "revocation_endpoint_auth_signing_alg_values_supported": assertionAlgorithms,
            "introspection_endpoint_auth_methods_supported": strings(authMethods),
            "introspection_endpoint_auth_signing_alg_values_supported": assertionAlgorithms,
            "code_challenge_methods_supported": strings(["S256"]),
            "dpop_signing_alg_values_supported": strings(ClientAssertionCheck.asymmetric.sorted()),
            "claims_supported": strings([
                "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "name",
                "given_name", "family_name", "preferred_username", "email", "email_verified",
            ]),
            "authorization_response_iss_parameter_supported": .bool(configuration.sendsIssuerInAuthorizationResponse),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false), // request_uri from PAR only
            "claims_parameter_supported": .bool(false),
            "client_id_metadata_document_supported": .bool(configuration.clientIDMetadataDocuments.isEnabled),
        ]
        if !configuration.trustedIdentityProviders.isEmpty {
            // draft-ietf-oauth-identity-assertion-authz-grant: the grant profile, apart from the grant type.
            document["authorization_grant_profiles_supported"] = strings([IdentityAssertionGrant.profile])
        }
        if configuration.allowsDynamicRegistration { document["registration_endpoint"] = url(EndpointPaths.registration) }
        if !configuration.acrValuesSupported.isEmpty {
            document["acr_values_supported"] = strings(configuration.acrValuesSupported)
            document["claims_supported"] = document["claims_supported"].flatMap(\.arrayValue).map { .array($0 + [.string("acr")]) }
        }
        return .json(.object(document))
    }

    func jwks() async -> ProviderResponse {
        do {
            var response = ProviderResponse.json(try await state.jwks())
            response.headers.append(("Cache-Control", "max-age=60"))
            return response
        } catch {
            return .json(.object(["error": .string("server_error")]), status: 500)
        }
    }
}
#endif
