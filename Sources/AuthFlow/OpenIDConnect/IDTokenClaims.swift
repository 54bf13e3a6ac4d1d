import Foundation

/// The claims of a verified ID token (OIDC Core §2), typed.
public struct IDTokenClaims: Sendable, Equatable, Codable {
    /// `iss`.
    public let issuer: String
    /// `sub`: the user's stable identifier at the issuer.
    public let subject: String
    /// `aud`, always as a list.
    public let audience: [String]
    /// `exp`.
    public let expiresAt: Date
    /// `iat`.
    public let issuedAt: Date
    /// `auth_time`, when present.
    public let authTime: Date?
    /// `nonce`, when present.
    public let nonce: String?
    /// `azp`, when present.
    public let authorizedParty: String?
    /// `at_hash`, when present.
    public let accessTokenHash: String?
    /// `acr`, when present.
    public let authenticationContextClass: String?
    /// `amr`, when present.
    public let authenticationMethods: [String]?
    /// `name`, when present.
    public var name: String? { all["name"]?.stringValue }
    /// `email`, when present.
    public var email: String? { all["email"]?.stringValue }
    /// `preferred_username`, when present.
    public var preferredUsername: String? { all["preferred_username"]?.stringValue }
    /// Every claim, including ones not modelled above.
    public let all: [String: JSONValue]

    /// Reads the claims of a JWT payload, requiring the members OIDC requires.
    public init(claims: [String: JSONValue]) throws {
        func string(_ name: String, _ reason: AuthFlowError.Reason) throws -> String? {
            switch claims[name] {
            case nil: return nil
            case .string(let value)?: return value
            default: throw AuthFlowError.idToken(reason, "the \(name) claim is not a string")
            }
        }
        func date(_ name: String, _ reason: AuthFlowError.Reason) throws -> Date? {
            switch claims[name] {
            case nil: return nil
            case .number(let value)? where value.isFinite: return Date(timeIntervalSince1970: value)
            default: throw AuthFlowError.idToken(reason, "the \(name) claim is not a number")
            }
        }
        guard let issuer = try string("iss", .issuer) else { throw AuthFlowError.idToken(.issuer, "the ID token has no iss") }
        guard let subject = try string("sub", .subject), !subject.isEmpty else { throw AuthFlowError.idToken(.subject, "the ID token has no sub") }
        switch claims["aud"] {
        case .string(let value)?: audience = [value]
        case .array(let values)? where !values.isEmpty && values.allSatisfy({ $0.stringValue != nil }):
            audience = values.compactMap(\.stringValue)
        default: throw AuthFlowError.idToken(.audience, "the ID token has no valid aud")
        }
        guard let expiresAt = try date("exp", .expired) else { throw AuthFlowError.idToken(.expired, "the ID token has no exp") }
        guard let issuedAt = try date("iat", .issuedAt) else { throw AuthFlowError.idToken(.issuedAt, "the ID token has no iat") }
        self.issuer = issuer
        self.subject = subject
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        authTime = try date("auth_time", .authTime)
        nonce = try string("nonce", .nonce)
        authorizedParty = try string("azp", .authorizedParty)
        accessTokenHash = try string("at_hash", .atHash)
        authenticationContextClass = try string("acr", .malformed)
        authenticationMethods = claims["amr"]?.arrayValue?.compactMap(\.stringValue)
        all = claims
    }
}
