#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a sign-in produces: tokens, with the ID token verified.
public struct OAuthCredentials: Sendable, Equatable, Codable {
    /// The issuer, when known.
    public var issuer: Issuer?
    /// The client the tokens belong to.
    public var clientID: String
    /// The token response.
    public var token: TokenResponse
    /// The verified ID token claims, when an ID token was issued.
    public var idToken: IDTokenClaims?

    /// Creates credentials.
    public init(issuer: Issuer?, clientID: String, token: TokenResponse, idToken: IDTokenClaims?) {
        self.issuer = issuer
        self.clientID = clientID
        self.token = token
        self.idToken = idToken
    }

    /// The access token. Secret.
    public var accessToken: String { token.accessToken }
    /// Granted scopes.
    public var scopes: [String] { token.scopes }
    /// When the access token expires, when known.
    public var expiresAt: Date? { token.expiresAt }
    /// Whether `scope` was granted: the way an app decides which features
    /// to offer (granted scopes may be fewer than those requested).
    public func hasScope(_ scope: String) -> Bool { token.scopes.contains(scope) }
    /// The signed-in user's `sub`, when an ID token was issued.
    public var subject: String? { idToken?.subject }
}

extension OAuthCredentials: CustomStringConvertible {
    /// Redacts every token.
    public var description: String {
        "OAuthCredentials(issuer: \(issuer?.identifier ?? "-"), subject: \(subject ?? "-"), \(token))"
    }
}
