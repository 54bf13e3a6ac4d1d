#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One authorization request (RFC 6749 §4.1.1 with PKCE and OIDC), with the
/// secrets needed to check its callback and redeem its code.
///
/// Create it with ``OAuthClient/authorizationRequest(redirectURI:scopes:options:)``,
/// send the user to ``url``, then pass the callback URL to ``validateCallback(_:)``.
public struct AuthorizationRequest: Sendable, Codable {
    /// The URL to open in the browser.
    public internal(set) var url: URL
    /// When the `request_uri` of a pushed request (RFC 9126) expires; nil
    /// when the request was not pushed. Push a new request after this:
    /// see ``pushedRequestHasExpired(at:)``.
    public internal(set) var pushedRequestExpiresAt: Date?

    /// Whether this is a pushed request whose `request_uri` has expired
    /// (RFC 9126 §2.2), so that opening ``url`` now would fail: push a new
    /// request instead. ``OAuthClient/signIn(redirectURI:scopes:options:userAgent:)``
    /// does so by itself.
    public func pushedRequestHasExpired(at now: Date = Date()) -> Bool {
        pushedRequestExpiresAt.map { $0 <= now } ?? false
    }
    /// The client the request is for.
    public let clientID: String
    /// The exact redirect URI sent; the token request repeats it.
    public let redirectURI: URL
    /// Requested scopes.
    public let scopes: [String]
    /// The `state` value (32 random bytes). Secret until the callback.
    public let state: String
    /// The `nonce` (32 random bytes), sent when `openid` is requested.
    public let nonce: String?
    /// The PKCE pair; the verifier is secret.
    public let pkce: PKCE
    /// The issuer the response must come from, when known.
    public let issuer: Issuer?
    /// The tenants accepted when ``issuer`` is a multi-tenant template.
    public let issuerTenants: IssuerTenants?
    /// Whether the callback must carry `iss` (RFC 9207 metadata says so).
    public let requiresIssuerParameter: Bool
    /// `max_age`, when sent.
    public let maxAge: Int?
    /// The `acr` values the ID token must name one of, when the request made
    /// `acr` essential or the options ask for the check
    /// (``AuthorizationOptions/checksACRValues``); nil otherwise.
    public let requiredACRValues: [String]?
    /// `response_mode`, when sent.
    public let responseMode: AuthorizationOptions.ResponseMode?
    /// The `acr_values` sent, when some were (nil in a request stored by an older version).
    public let acrValues: [String]?
    /// The `context` sent (``AuthorizationOptions/setContext(_:)``), when one was.
    public let context: String?
    /// The `correlation_id` sent (``AuthorizationOptions/setCorrelationID(_:)``), when one was.
    public let correlationID: String?
    /// Whether the provider has a pushed authorization request endpoint
    /// (RFC 9126), so that an `invalid_request` to a plain request can point
    /// to PAR (nil in a request stored by an older version).
    let providerOffersPAR: Bool?

    /// Whether the response comes back as a form POST to the redirect URI
    /// (`response_mode=form_post`); only then may a listener accept a POST.
    public var expectsFormPost: Bool { responseMode == .formPost }

    init(
        metadata: ProviderMetadata, clientID: String, redirectURI: URL, scopes: [String], options: AuthorizationOptions,
        state: String = SecureRandom.token(), nonce: String? = SecureRandom.token(), pkce: PKCE = PKCE()
    ) throws {
        guard !clientID.isEmpty else { throw AuthFlowError.configuration("client_id is empty") }
        try RedirectURIPolicy.validate(redirectURI)
        for scope in scopes where scope.isEmpty || scope.contains(" ") {
            throw AuthFlowError.configuration("a scope is empty or contains a space")
        }
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
        self.state = state
        self.nonce = scopes.contains("openid") ? nonce : nil
        self.pkce = pkce
        issuer = metadata.issuer
        issuerTenants = metadata.issuerTenants
        requiresIssuerParameter = metadata.authorizationResponseIssParameterSupported
        maxAge = options.maxAge
        requiredACRValues = try options.requiredACRValues()
        responseMode = options.effectiveResponseMode
        providerOffersPAR = metadata.pushedAuthorizationRequestEndpoint != nil

        var pairs: [(String, String)] = [
            ("response_type", "code"),
            ("client_id", clientID),
            ("redirect_uri", redirectURI.absoluteString),
        ]
        if !scopes.isEmpty { pairs.append(("scope", scopes.joined(separator: " "))) }
        pairs.append(("state", state))
        if let nonce = self.nonce { pairs.append(("nonce", nonce)) }
        pairs.append(("code_challenge", pkce.challenge))
        pairs.append(("code_challenge_method", pkce.method))
        let sent = try options.parameters()
        pairs += sent
        acrValues = sent.first { $0.0 == "acr_values" }.map { $0.1.split(separator: " ").map(String.init) }
        context = sent.first { $0.0 == "context" }?.1
        correlationID = sent.first { $0.0 == AuthorizationOptions.correlationIDParameter }?.1
        url = try AuthorizationRequest.appending(pairs, to: metadata.authorizationEndpoint)
    }

    /// Appends form-encoded pairs to an endpoint, keeping its own query.
    static func appending(_ pairs: [(String, String)], to endpoint: URL) throws -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw AuthFlowError.configuration("authorization endpoint is not a valid URL")
        }
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        if let existing, let names = FormEncoding.decode(existing)?.map(\.0),
            let clash = names.first(where: { name in pairs.contains { $0.0 == name } })
        {
            throw AuthFlowError.configuration("authorization endpoint already has a \(clash) parameter")
        }
        let added = FormEncoding.encode(pairs)
        components.percentEncodedQuery = existing.map { "\($0)&\(added)" } ?? added
        guard let url = components.url else { throw AuthFlowError.configuration("authorization URL could not be built") }
        return url
    }
}

extension AuthorizationRequest: CustomStringConvertible {
    /// Names the client and redirect URI only; state, nonce and verifier are secret.
    public var description: String {
        "AuthorizationRequest(client_id: \(clientID), redirect_uri: \(redirectURI.absoluteString), scopes: \(scopes.joined(separator: " ")))"
    }
}
