import Foundation

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
    public var issuer: String?
    /// The scopes requested (used when the token response omits `scope`).
    public var requestedScopes: [String]
    /// `max_age` sent, to check `auth_time` with.
    public var maxAge: Int?

    /// Creates a grant, for example from values an app sent to its backend.
    public init(code: String, codeVerifier: String, redirectURI: URL, clientID: String, nonce: String? = nil,
                issuer: String? = nil, requestedScopes: [String] = [], maxAge: Int? = nil) {
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
    }
}

extension AuthorizationGrant: CustomStringConvertible {
    /// Redacts the code, verifier and nonce.
    public var description: String {
        "AuthorizationGrant(client_id: \(clientID), redirect_uri: \(redirectURI.absoluteString), code: <redacted>)"
    }
}
