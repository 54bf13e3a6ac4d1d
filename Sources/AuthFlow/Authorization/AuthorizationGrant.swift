#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An authorization code with everything needed to redeem it: the result of
/// a validated callback.
///
/// It is `Codable` so that an app can hand it to its backend, which finishes
/// the exchange with ``OAuthClient/exchange(_:)`` as a confidential client
/// (the verifier and nonce travel with the code). Treat it as a secret.
public struct AuthorizationGrant: Sendable, Codable, Equatable {
    /// The authorization code. Secret.
    public var code: String
    /// The PKCE code verifier. Secret.
    public var codeVerifier: String
    /// The redirect URI the code was issued for.
    public var redirectURI: URL
    /// The client the code was issued to.
    public var clientID: String
    /// The nonce sent, to check the ID token with.
    public var nonce: String?
    /// The issuer that answered, when known.
    public var issuer: Issuer?
    /// The scopes requested (used when the token response omits `scope`).
    public var requestedScopes: [String]
    /// `max_age` sent, to check `auth_time` with.
    public var maxAge: Int?
    /// The `acr` values the ID token must name one of
    /// (``AuthorizationRequest/requiredACRValues``), when the request required one.
    public var requiredACRValues: [String]?
    /// The `acr_values` the request sent, when it sent some: the
    /// authentication level the app asked for, for the backend to compare
    /// with the ID token's `acr`.
    public var acrValues: [String]?
    /// The `context` the request sent (the message the provider showed on
    /// its consent screen), for the backend to record with the sign-in.
    public var context: String?
    /// The `correlation_id` the request sent: the app's identifier for this
    /// sign-in, for the backend's records and the provider's support.
    public var correlationID: String?
    /// The other members of the authorization response, in name order: what
    /// a provider adds beside `code`, `state` and `iss`, such as Sign in with
    /// Apple's `user` (a JSON text with the user's name, sent on the first
    /// sign-in only) or `session_state`.
    public var responseParameters: [AuthorizationOptions.Parameter]

    /// Creates a grant, for example from values an app sent to its backend.
    public init(
        code: String, codeVerifier: String, redirectURI: URL, clientID: String, nonce: String? = nil,
        issuer: Issuer? = nil, requestedScopes: [String] = [], maxAge: Int? = nil,
        responseParameters: [AuthorizationOptions.Parameter] = []
    ) {
        self.responseParameters = responseParameters
        self.code = code
        self.codeVerifier = codeVerifier
        self.redirectURI = redirectURI
        self.clientID = clientID
        self.nonce = nonce
        self.issuer = issuer
        self.requestedScopes = requestedScopes
        self.maxAge = maxAge
    }

    enum CodingKeys: String, CodingKey {
        case code
        case codeVerifier = "code_verifier"
        case redirectURI = "redirect_uri"
        case clientID = "client_id"
        case nonce, issuer
        case requestedScopes = "requested_scopes"
        case maxAge = "max_age"
        case requiredACRValues = "required_acr_values"
        case acrValues = "acr_values"
        case context
        case correlationID = "correlation_id"
        case responseParameters = "response_parameters"
    }

    /// Decodes a grant; `response_parameters`, `required_acr_values`,
    /// `acr_values`, `context` and `correlation_id` may be absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        codeVerifier = try container.decode(String.self, forKey: .codeVerifier)
        redirectURI = try container.decode(URL.self, forKey: .redirectURI)
        clientID = try container.decode(String.self, forKey: .clientID)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        issuer = try container.decodeIfPresent(Issuer.self, forKey: .issuer)
        requestedScopes = try container.decode([String].self, forKey: .requestedScopes)
        maxAge = try container.decodeIfPresent(Int.self, forKey: .maxAge)
        requiredACRValues = try container.decodeIfPresent([String].self, forKey: .requiredACRValues)
        acrValues = try container.decodeIfPresent([String].self, forKey: .acrValues)
        context = try container.decodeIfPresent(String.self, forKey: .context)
        correlationID = try container.decodeIfPresent(String.self, forKey: .correlationID)
        responseParameters = try container.decodeIfPresent([AuthorizationOptions.Parameter].self, forKey: .responseParameters) ?? []
    }

    /// Encodes a grant; `response_parameters` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(codeVerifier, forKey: .codeVerifier)
        try container.encode(redirectURI, forKey: .redirectURI)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(issuer, forKey: .issuer)
        try container.encode(requestedScopes, forKey: .requestedScopes)
        try container.encodeIfPresent(maxAge, forKey: .maxAge)
        try container.encodeIfPresent(requiredACRValues, forKey: .requiredACRValues)
        try container.encodeIfPresent(acrValues, forKey: .acrValues)
        try container.encodeIfPresent(context, forKey: .context)
        try container.encodeIfPresent(correlationID, forKey: .correlationID)
        if !responseParameters.isEmpty { try container.encode(responseParameters, forKey: .responseParameters) }
    }
}

extension AuthorizationGrant: CustomStringConvertible {
    /// Redacts the code, verifier and nonce.
    public var description: String {
        "AuthorizationGrant(client_id: \(clientID), redirect_uri: \(redirectURI.absoluteString), "
            + (correlationID.map { "correlation_id: \($0), " } ?? "") + "code: <redacted>)"
    }
}
