#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A successful token response (RFC 6749 §5.1).
public struct TokenResponse: Sendable, Equatable, Codable {
    /// The access token. Secret.
    public var accessToken: String
    /// `Bearer` or `DPoP`, normalised to that spelling; `N_A` in a token
    /// exchange response whose issued token is not an access token
    /// (``TokenExchangeResponse``).
    public var tokenType: String
    /// Lifetime in seconds from the response, when given.
    public var expiresIn: Int?
    /// When the access token expires, computed at receipt.
    public var expiresAt: Date?
    /// The refresh token, when issued. Secret.
    public var refreshToken: String?
    /// Granted scopes: the response's `scope`, else the requested ones.
    /// See ``scopes(from:)`` for how `scope` is read.
    public var scopes: [String]
    /// The raw ID token, when issued.
    public var idToken: String?
    /// Members AuthFlow does not model, kept as they came.
    public var additional: [String: JSONMemberValue]

    /// Parses a 2xx token-endpoint body. A body with `error` and no
    /// `access_token` (providers that answer errors with HTTP 200, such as
    /// GitHub and Slack) is ``AuthFlowError/Category/oauthError``.
    ///
    /// - Parameters:
    ///   - data: the response body.
    ///   - requestedScopes: reported as granted when the response has no `scope`.
    ///   - allowDPoP: whether a `DPoP` token type is acceptable.
    ///   - now: the time of receipt, for ``expiresAt``.
    public init(json data: Data, requestedScopes: [String], allowDPoP: Bool = false, now: Date = Date()) throws {
        try self.init(json: data, requestedScopes: requestedScopes, allowDPoP: allowDPoP, allowNotApplicable: false, now: now)
    }

    /// ``init(json:requestedScopes:allowDPoP:now:)``, also accepting the
    /// `token_type` `N_A` of a token exchange (RFC 8693 §2.2.1) when `allowNotApplicable`.
    init(json data: Data, requestedScopes: [String], allowDPoP: Bool, allowNotApplicable: Bool, now: Date = Date()) throws {
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("token response is not a JSON object")
        }
        let reader = MemberReader(object: object, context: "token response")
        // Some providers answer errors with HTTP 200 (GitHub's `bad_verification_code`,
        // Slack's `{"ok":false,"error":…}`): an `error` and no access token is an OAuth error.
        if object["access_token"] == nil, case .string(let error)? = object["error"], !error.isEmpty {
            throw AuthFlowError(
                .oauthError, error,
                oauth: OAuthErrorResponse(
                    error: error, errorDescription: try? reader.string("error_description"), errorURI: try? reader.string("error_uri")))
        }
        accessToken = try Self.checkedToken(reader.requiredString("access_token"), "access_token")
        let type = try reader.requiredString("token_type")
        switch type.lowercased() {
        case "bearer": tokenType = "Bearer"
        case "dpop" where allowDPoP: tokenType = "DPoP"
        case "n_a" where allowNotApplicable: tokenType = TokenExchangeResponse.notApplicable
        default: throw AuthFlowError.invalidResponse("token response has unsupported token_type \(type)")
        }
        switch object["expires_in"] {
        case nil, .null?:
            expiresIn = nil
        case .number(let value)? where value >= 0 && value < 1e10 && value.rounded() == value:
            expiresIn = Int(value)
        case .string(let text)? where Int(text).map({ $0 >= 0 && $0 < 10_000_000_000 }) == true:
            expiresIn = Int(text)
        default:
            throw AuthFlowError.invalidResponse("token response has an invalid expires_in")
        }
        expiresAt = expiresIn.map { now.addingTimeInterval(TimeInterval($0)) }
        refreshToken = try reader.string("refresh_token").map { try Self.checkedToken($0, "refresh_token") }
        if let scope = try reader.string("scope") {
            scopes = TokenResponse.scopes(from: scope)
        } else {
            scopes = requestedScopes
        }
        idToken = try reader.string("id_token")
        let known: Set<String> = ["access_token", "token_type", "expires_in", "refresh_token", "scope", "id_token"]
        additional = object.filter { !known.contains($0.key) }
    }
}

extension TokenResponse {
    /// A token as RFC 6749 Appendix A defines it: one or more VSCHAR
    /// (printable ASCII, space included). A token with a control character
    /// would reach a header (`Authorization`, a DPoP `ath`) or a terminal
    /// (`authflow token`) as it came; it is refused instead.
    static func checkedToken(_ token: String, _ name: StaticString) throws -> String {
        guard token.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw AuthFlowError.invalidResponse("token response has \(name) with characters outside printable ASCII (RFC 6749 Appendix A)")
        }
        return token
    }

    /// Reads a `scope` value as the provider means it.
    ///
    /// RFC 6749 §3.3 separates scopes with spaces, and a value with any
    /// space is read that way: split on spaces, nothing else. A value with
    /// no space but with commas is a comma-separated list, as GitHub sends
    /// (`read:user,user:email`): it is split on commas. Empty pieces are
    /// dropped either way.
    public static func scopes(from value: String) -> [String] {
        let separator: Character = !value.contains(" ") && value.contains(",") ? "," : " "
        return value.split(separator: separator).map(String.init)
    }
}

extension TokenResponse: CustomStringConvertible {
    /// Shows type, expiry and scopes; tokens are redacted.
    public var description: String {
        "TokenResponse(token_type: \(tokenType), expires_in: \(expiresIn.map(String.init) ?? "-"), scope: \(scopes.joined(separator: " ")), refresh_token: \(refreshToken == nil ? "no" : "yes"), id_token: \(idToken == nil ? "no" : "yes"))"
    }
}
