/// A successful token exchange response (RFC 8693 §2.2.1).
///
/// The issued token is in ``token`` (its ``TokenResponse/accessToken`` holds
/// the issued token whatever its type, as the wire's `access_token` does),
/// and ``issuedTokenType`` says what it is. A token that is not an access
/// token has the ``TokenResponse/tokenType`` `N_A`.
public struct TokenExchangeResponse: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The token response: the issued token, `token_type` (`Bearer`, `DPoP`
    /// or `N_A`), `expires_in`, `scope` and `refresh_token`.
    public var token: TokenResponse
    /// What the issued token is (`issued_token_type`): checked to be present,
    /// and equal to the request's ``TokenExchangeRequest/requestedTokenType``
    /// when it named one.
    public var issuedTokenType: TokenTypeIdentifier

    /// Creates a response.
    public init(token: TokenResponse, issuedTokenType: TokenTypeIdentifier) {
        self.token = token
        self.issuedTokenType = issuedTokenType
    }

    /// The issued token (the response's `access_token`). Secret.
    public var issuedToken: String { token.accessToken }
    /// Whether the issued token can be used as an access token: its
    /// `token_type` is not `N_A`.
    public var isAccessToken: Bool { token.tokenType != TokenExchangeResponse.notApplicable }

    /// The issued token type and the response's other members; tokens are redacted.
    public var description: String {
        "TokenExchangeResponse(issued_token_type: \(issuedTokenType), \(token))"
    }

    /// The `token_type` of an issued token that is not an access token (RFC 8693 §2.2.1).
    static let notApplicable = "N_A"

    /// Reads `issued_token_type` from a token response and checks it.
    ///
    /// - Throws: ``AuthFlowError/Category/invalidResponse`` when it is
    ///   missing, is not a URI, or is not the one requested.
    init(checking token: TokenResponse, requested: TokenTypeIdentifier?) throws {
        guard let member = token.additional["issued_token_type"] else {
            throw AuthFlowError.invalidResponse("the token exchange response has no issued_token_type (RFC 8693 §2.2.1)")
        }
        guard case .string(let text) = member, let issued = TokenTypeIdentifier(text) else {
            throw AuthFlowError.invalidResponse("the token exchange response has an issued_token_type that is not a URI")
        }
        if let requested, issued != requested {
            // Only a known identifier is named: the member came from the server and could carry anything.
            let named = TokenTypeIdentifier.known.contains(issued) ? issued.rawValue : "another token type"
            throw AuthFlowError.invalidResponse(
                "the token exchange response issued \(named), not the requested \(requested.rawValue)")
        }
        var token = token
        token.additional["issued_token_type"] = nil
        self.init(token: token, issuedTokenType: issued)
    }
}
