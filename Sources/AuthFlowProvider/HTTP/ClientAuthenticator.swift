#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Client authentication at the token, revocation, introspection and device
/// authorization endpoints (RFC 6749 §2.3): each client by exactly the
/// method it is registered for, and never by two methods at once.
struct ClientAuthenticator: Sendable {
    let clients: [ProviderClient]
    /// What a client assertion's `aud` may be, as a single string: the
    /// issuer identifier, and the token endpoint URL only when the
    /// compatibility setting allows it (draft-ietf-oauth-rfc7523bis).
    var audiences: Set<String> = []
    var now = Date()

    /// The authenticated client, or `invalid_client` / `invalid_request`.
    func authenticate(_ request: ProviderRequest, form: StrictForm) throws(OAuthFailure) -> ProviderClient {
        try authenticateWithAssertion(request, form: form).client
    }

    /// The authenticated client and, when it used a JWT, the assertion's
    /// `jti` and expiry (for replay detection by the caller).
    func authenticateWithAssertion(_ request: ProviderRequest, form: StrictForm) throws(OAuthFailure)
        -> (client: ProviderClient, assertion: ClientAssertionCheck.Accepted?)
    {
        if form["client_assertion"] != nil || form["client_assertion_type"] != nil {
            guard request.header("Authorization") == nil, form["client_secret"] == nil else {
                throw .invalidRequest("the client used more than one authentication method")
            }
            let accepted = try ClientAssertionCheck(clients: clients, audiences: audiences, now: now).check(form)
            return (accepted.client, accepted)
        }
        return (try authenticateWithoutAssertion(request, form: form), nil)
    }

    private func authenticateWithoutAssertion(_ request: ProviderRequest, form: StrictForm) throws(OAuthFailure) -> ProviderClient {
        if let header = request.header("Authorization") {
            guard header.count > 6, header.prefix(6).lowercased() == "basic " else {
                throw .invalidClient("only HTTP Basic client authentication is supported in the Authorization header", triedBasic: true)
            }
            let (id, secret) = try ClientAuthenticator.decodeBasic(String(header.dropFirst(6)))
            guard form["client_secret"] == nil else { throw .invalidRequest("the client used more than one authentication method") }
            if let bodyID = form["client_id"], bodyID != id { throw .invalidRequest("client_id differs from the authenticated client") }
            let client = try lookup(id, triedBasic: true)
            guard client.authentication == .clientSecretBasic else {
                throw .invalidClient("the client is not registered for client_secret_basic", triedBasic: true)
            }
            try ClientAuthenticator.check(secret, against: client, triedBasic: true)
            return client
        }
        guard let id = form["client_id"] else { throw .invalidClient("no client authentication and no client_id") }
        let client = try lookup(id)
        if let secret = form["client_secret"] {
            guard client.authentication == .clientSecretPost else {
                throw .invalidClient("the client is not registered for client_secret_post")
            }
            try ClientAuthenticator.check(secret, against: client)
        } else if client.isConfidential {
            if client.authentication == .privateKeyJWT || client.authentication == .clientSecretJWT {
                throw .invalidClient("the client is registered for \(client.authentication.rawValue) and sent no client_assertion")
            }
            throw .invalidClient("the client is confidential and did not authenticate")
        }
        return client
    }

    private func lookup(_ id: String, triedBasic: Bool = false) throws(OAuthFailure) -> ProviderClient {
        guard let client = clients.first(where: { $0.id == id }) else { throw .invalidClient("unknown client", triedBasic: triedBasic) }
        return client
    }

    private static func check(_ secret: String, against client: ProviderClient, triedBasic: Bool = false) throws(OAuthFailure) {
        guard let expected = client.secret, constantTimeEquals(secret, expected) else {
            throw .invalidClient("client authentication failed", triedBasic: triedBasic)
        }
    }

    /// Decodes `base64(urlencode(id):urlencode(secret))`.
    static func decodeBasic(_ credentials: String) throws(OAuthFailure) -> (String, String) {
        guard let data = Data(base64Encoded: credentials.trimmingWhitespace()),
            let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":"),
            let id = FormEncoding.decodeComponent(text[..<colon]),
            let secret = FormEncoding.decodeComponent(text[text.index(after: colon)...]),
            !id.isEmpty
        else {
            throw .invalidClient("malformed HTTP Basic credentials", triedBasic: true)
        }
        return (id, secret)
    }
}

extension ProviderState {
    /// What a client assertion's `aud` may be: the issuer, and `<issuer>/token`
    /// behind ``ProviderConfiguration/acceptsTokenEndpointAssertionAudience``.
    var assertionAudiences: Set<String> {
        configuration.acceptsTokenEndpointAssertionAudience ? [issuer, issuer + EndpointPaths.token] : [issuer]
    }

    /// The strictly parsed form of `request` and the client it authenticates:
    /// the start of every endpoint that takes client authentication. A
    /// client assertion is accepted once: its `jti` is remembered until it expires.
    /// A `client_id` that is a client ID metadata document is fetched first
    /// (or taken from the copy kept).
    func authenticatedForm(_ request: ProviderRequest) async throws(OAuthFailure) -> (form: StrictForm, client: ProviderClient) {
        let form = try StrictForm(body: request)
        if let id = form["client_id"] { _ = try await resolveClient(id) }
        let now = Date()
        let authenticator = ClientAuthenticator(clients: knownClients, audiences: assertionAudiences, now: now)
        let (client, assertion) = try authenticator.authenticateWithAssertion(request, form: form)
        if let assertion { try rememberAssertion(assertion, now: now) }
        return (form, client)
    }
}
#endif
