#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Authorization server metadata: OpenID Connect Discovery 1.0 §3 and RFC 8414 §2.
///
/// Build one by hand for providers without discovery (only the two endpoints
/// are needed), or get one from ``ProviderMetadata/discover(issuer:tenants:transport:timeout:logger:)``.
public struct ProviderMetadata: Sendable, Equatable, Codable {
    /// The issuer, compared exactly (no normalisation); `nil` for a provider
    /// that names none (GitHub, Zoom), whose ID tokens cannot be verified.
    public var issuer: Issuer?
    /// Where the browser is sent.
    public var authorizationEndpoint: URL
    /// Where codes and refresh tokens are exchanged.
    public var tokenEndpoint: URL
    /// `userinfo_endpoint`: where ``OAuthClient`` fetches the signed-in user's claims (OIDC Core §5.3).
    public var userinfoEndpoint: URL?
    /// `jwks_uri`: the provider's JWK Set, for verifying ID-token signatures.
    public var jwksURI: URL?
    /// `revocation_endpoint` (RFC 7009), used by sign-out.
    public var revocationEndpoint: URL?
    /// `introspection_endpoint` (RFC 7662).
    public var introspectionEndpoint: URL?
    /// `end_session_endpoint`: RP-initiated logout.
    public var endSessionEndpoint: URL?
    /// `device_authorization_endpoint` (RFC 8628).
    public var deviceAuthorizationEndpoint: URL?
    /// `pushed_authorization_request_endpoint` (RFC 9126).
    public var pushedAuthorizationRequestEndpoint: URL?
    /// `backchannel_authentication_endpoint` (OpenID CIBA Core 1.0 §4).
    public var backchannelAuthenticationEndpoint: URL?
    /// `registration_endpoint` (RFC 7591): where a client registers itself.
    public var registrationEndpoint: URL?
    /// `scopes_supported`.
    public var scopesSupported: [String]?
    /// `response_types_supported`.
    public var responseTypesSupported: [String]?
    /// `grant_types_supported`.
    public var grantTypesSupported: [String]?
    /// `code_challenge_methods_supported` (RFC 7636): a provider that lists methods without `S256` is refused.
    public var codeChallengeMethodsSupported: [String]?
    /// `token_endpoint_auth_methods_supported`.
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// `id_token_signing_alg_values_supported`.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// RFC 9207: when true, authorization responses must carry `iss`.
    public var authorizationResponseIssParameterSupported: Bool
    /// Every member of the document, including ones AuthFlow does not model.
    public var document: [String: JSONMemberValue]
    /// The tenants accepted when ``issuer`` is a multi-tenant template
    /// (`…/{tenantid}/…`, Microsoft Entra ID's `common`, `organizations` and
    /// `consumers` authorities); `nil` accepts no template. See ``IssuerTenants``.
    public var issuerTenants: IssuerTenants?

    /// Metadata for a provider without discovery: the two endpoints every
    /// flow needs, and those that sign-out, userinfo and ID-token
    /// verification use when the provider has them.
    ///
    /// With `jwksURI` and `issuer`, ID tokens are verified (signature, `iss`,
    /// `aud`, expiry, nonce) as for a discovered provider; without an issuer
    /// they cannot be, and are not used. Every URL must be https (loopback
    /// hosts excepted); ``OAuthClient`` checks that.
    public init(
        issuer: Issuer? = nil, authorizationEndpoint: URL, tokenEndpoint: URL,
        revocationEndpoint: URL? = nil, userinfoEndpoint: URL? = nil, endSessionEndpoint: URL? = nil,
        jwksURI: URL? = nil
    ) {
        self.issuer = issuer
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.userinfoEndpoint = userinfoEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.jwksURI = jwksURI
        authorizationResponseIssParameterSupported = false
        document = [:]
    }

    /// Parses a metadata document. Known members of the wrong type, or a
    /// missing `issuer`, `authorization_endpoint` or `token_endpoint`, are
    /// ``AuthFlowError/Category/invalidResponse``.
    public init(json data: Data) throws {
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("provider metadata is not a JSON object")
        }
        let reader = MemberReader(object: object, context: "provider metadata")
        issuer = try reader.requiredIssuer()
        authorizationEndpoint = try reader.requiredURL("authorization_endpoint")
        tokenEndpoint = try reader.requiredURL("token_endpoint")
        userinfoEndpoint = try reader.url("userinfo_endpoint")
        jwksURI = try reader.url("jwks_uri")
        revocationEndpoint = try reader.url("revocation_endpoint")
        introspectionEndpoint = try reader.url("introspection_endpoint")
        endSessionEndpoint = try reader.url("end_session_endpoint")
        deviceAuthorizationEndpoint = try reader.url("device_authorization_endpoint")
        pushedAuthorizationRequestEndpoint = try reader.url("pushed_authorization_request_endpoint")
        backchannelAuthenticationEndpoint = try reader.url("backchannel_authentication_endpoint")
        registrationEndpoint = try reader.url("registration_endpoint")
        scopesSupported = try reader.strings("scopes_supported")
        responseTypesSupported = try reader.strings("response_types_supported")
        grantTypesSupported = try reader.strings("grant_types_supported")
        codeChallengeMethodsSupported = try reader.strings("code_challenge_methods_supported")
        tokenEndpointAuthMethodsSupported = try reader.strings("token_endpoint_auth_methods_supported")
        idTokenSigningAlgValuesSupported = try reader.strings("id_token_signing_alg_values_supported")
        authorizationResponseIssParameterSupported = try reader.bool("authorization_response_iss_parameter_supported") ?? false
        document = object
    }

    /// `client_id_metadata_document_supported`: the provider accepts an
    /// https URL as a client ID and reads the client's metadata from it
    /// (OAuth Client ID Metadata Document).
    public var clientIDMetadataDocumentSupported: Bool {
        if case .bool(true)? = document["client_id_metadata_document_supported"] { return true }
        return false
    }

    /// `backchannel_token_delivery_modes_supported` (OpenID CIBA Core 1.0 §4):
    /// `poll`, `ping`, `push`; empty when the provider names none.
    public var backchannelTokenDeliveryModesSupported: [String] {
        guard case .array(let modes)? = document["backchannel_token_delivery_modes_supported"] else { return [] }
        return modes.compactMap { if case .string(let mode) = $0 { mode } else { nil } }
    }

    /// Every endpoint present, with its metadata name.
    package var endpointList: [(name: String, url: URL)] {
        let all: [(String, URL?)] = [
            ("authorization_endpoint", authorizationEndpoint), ("token_endpoint", tokenEndpoint),
            ("userinfo_endpoint", userinfoEndpoint), ("jwks_uri", jwksURI),
            ("revocation_endpoint", revocationEndpoint), ("introspection_endpoint", introspectionEndpoint),
            ("end_session_endpoint", endSessionEndpoint), ("device_authorization_endpoint", deviceAuthorizationEndpoint),
            ("pushed_authorization_request_endpoint", pushedAuthorizationRequestEndpoint),
            ("backchannel_authentication_endpoint", backchannelAuthenticationEndpoint),
            ("registration_endpoint", registrationEndpoint),
        ]
        return all.compactMap { name, url in url.map { (name: name, url: $0) } }
    }

    /// Requires https (or a loopback host) for every endpoint (an
    /// ``Issuer`` is checked when it is made).
    func validateTransportSecurity() throws {
        for (name, url) in endpointList { try URLPolicy.requireSecure(url, name) }
    }
}

/// Typed access to the members of a JSON object.
struct MemberReader {
    let object: [String: JSONMemberValue]
    let context: String

    private func wrongType(_ name: String, _ expected: String) -> AuthFlowError {
        .invalidResponse("\(context): \(name) must be \(expected)")
    }

    func string(_ name: String) throws -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw wrongType(name, "a string")
        }
    }

    func requiredString(_ name: String) throws -> String {
        guard let value = try string(name), !value.isEmpty else {
            throw AuthFlowError.invalidResponse("\(context): \(name) is missing")
        }
        return value
    }

    /// The `issuer` member as an ``Issuer``: missing, or not an issuer URL, is
    /// ``AuthFlowError/Category/invalidResponse`` naming the reason.
    func requiredIssuer() throws -> Issuer {
        let text = try requiredString("issuer")
        do {
            return try Issuer(text)
        } catch let error as AuthFlowError {
            throw AuthFlowError.invalidResponse("\(context): issuer \(text.prefix(200)) is not usable: \(error.message)")
        }
    }

    func url(_ name: String) throws -> URL? {
        guard let text = try string(name) else { return nil }
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { throw wrongType(name, "an absolute URL") }
        return url
    }

    func requiredURL(_ name: String) throws -> URL {
        guard let url = try url(name) else { throw AuthFlowError.invalidResponse("\(context): \(name) is missing") }
        return url
    }

    func strings(_ name: String) throws -> [String]? {
        switch object[name] {
        case nil, .null?: return nil
        case .array(let values)?:
            return try values.map {
                guard case .string(let value) = $0 else { throw wrongType(name, "an array of strings") }
                return value
            }
        default: throw wrongType(name, "an array of strings")
        }
    }

    func bool(_ name: String) throws -> Bool? {
        switch object[name] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw wrongType(name, "a boolean")
        }
    }
}
