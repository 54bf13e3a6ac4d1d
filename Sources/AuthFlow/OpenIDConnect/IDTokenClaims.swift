public import Foundation

/// The claims of a verified ID token (OIDC Core §2), typed.
public struct IDTokenClaims: Sendable, Equatable, Codable, CustomReflectable {
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
    /// `name`, when present as a string.
    public let name: String?
    /// `email`, when present as a string.
    public let email: String?
    /// `preferred_username`, when present as a string.
    public let preferredUsername: String?
    /// Every claim, including ones not modelled above.
    public let all: [String: JSONMemberValue]

    /// Reads the claims of a JWT payload, requiring the members OIDC requires.
    public init(claims: [String: JSONMemberValue]) throws {
        try self.init(IDTokenClaimValues(claims), all: claims)
    }

    /// The presence and type rules, in one order, each failure with its reason.
    private init(_ values: IDTokenClaimValues, all: [String: JSONMemberValue]) throws {
        func typed<T>(_ reading: IDTokenClaimValues.Reading<T>, _ name: StaticString, _ reason: AuthFlowError.Reason,
                      _ kind: StaticString) throws -> T? {
            switch reading {
            case .absent: return nil
            case .value(let value): return value
            case .wrongType: throw AuthFlowError.idToken(reason, "the \(name) claim is not a \(kind)")
            }
        }
        guard let issuer = try typed(values.iss, "iss", .issuer, "string") else {
            throw AuthFlowError.idToken(.issuer, "the ID token has no iss")
        }
        guard let subject = try typed(values.sub, "sub", .subject, "string"), !subject.isEmpty else {
            throw AuthFlowError.idToken(.subject, "the ID token has no sub")
        }
        guard let audience = values.aud.value else { throw AuthFlowError.idToken(.audience, "the ID token has no valid aud") }
        guard let expiresAt = try typed(values.exp, "exp", .expired, "number") else {
            throw AuthFlowError.idToken(.expired, "the ID token has no exp")
        }
        guard let issuedAt = try typed(values.iat, "iat", .issuedAt, "number") else {
            throw AuthFlowError.idToken(.issuedAt, "the ID token has no iat")
        }
        authTime = try typed(values.authTime, "auth_time", .authTime, "number").map(Date.init(timeIntervalSince1970:))
        nonce = try typed(values.nonce, "nonce", .nonce, "string")
        authorizedParty = try typed(values.azp, "azp", .authorizedParty, "string")
        accessTokenHash = try typed(values.atHash, "at_hash", .atHash, "string")
        authenticationContextClass = try typed(values.acr, "acr", .malformed, "string")
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = Date(timeIntervalSince1970: expiresAt)
        self.issuedAt = Date(timeIntervalSince1970: issuedAt)
        authenticationMethods = values.amr
        name = values.name
        email = values.email
        preferredUsername = values.preferredUsername
        self.all = all
    }

    /// The claims, for `print` and `dump`; never the token they were read from.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "issuer": issuer, "subject": subject, "audience": audience, "expiresAt": expiresAt, "issuedAt": issuedAt,
            "authTime": authTime as Any, "nonce": nonce as Any, "authorizedParty": authorizedParty as Any,
            "accessTokenHash": accessTokenHash as Any, "authenticationContextClass": authenticationContextClass as Any,
            "authenticationMethods": authenticationMethods as Any, "all": all,
        ] as KeyValuePairs<String, Any>, displayStyle: .struct)
    }

    // MARK: Codable: the typed claims beside `all`, as stored by earlier versions.

    private enum CodingKeys: String, CodingKey {
        case issuer, subject, audience, expiresAt, issuedAt, authTime, nonce, authorizedParty, accessTokenHash
        case authenticationContextClass, authenticationMethods, all
    }

    /// Decodes what ``encode(to:)`` wrote; the stored typed values win over `all`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let all = try container.decode([String: JSONMemberValue].self, forKey: .all)
        var values = IDTokenClaimValues(all)
        func reading<T>(_ value: T?) -> IDTokenClaimValues.Reading<T> { value.map { .value($0) } ?? .absent }
        values.iss = .value(try container.decode(String.self, forKey: .issuer))
        values.sub = .value(try container.decode(String.self, forKey: .subject))
        values.aud = .value(try container.decode([String].self, forKey: .audience))
        values.exp = .value(try container.decode(Date.self, forKey: .expiresAt).timeIntervalSince1970)
        values.iat = .value(try container.decode(Date.self, forKey: .issuedAt).timeIntervalSince1970)
        values.authTime = reading(try container.decodeIfPresent(Date.self, forKey: .authTime)?.timeIntervalSince1970)
        values.nonce = reading(try container.decodeIfPresent(String.self, forKey: .nonce))
        values.azp = reading(try container.decodeIfPresent(String.self, forKey: .authorizedParty))
        values.atHash = reading(try container.decodeIfPresent(String.self, forKey: .accessTokenHash))
        values.acr = reading(try container.decodeIfPresent(String.self, forKey: .authenticationContextClass))
        values.amr = try container.decodeIfPresent([String].self, forKey: .authenticationMethods)
        do {
            try self.init(values, all: all)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "stored ID token claims are incomplete"))
        }
    }

    /// Encodes the typed claims and `all`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(subject, forKey: .subject)
        try container.encode(audience, forKey: .audience)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(issuedAt, forKey: .issuedAt)
        try container.encodeIfPresent(authTime, forKey: .authTime)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encodeIfPresent(authorizedParty, forKey: .authorizedParty)
        try container.encodeIfPresent(accessTokenHash, forKey: .accessTokenHash)
        try container.encodeIfPresent(authenticationContextClass, forKey: .authenticationContextClass)
        try container.encodeIfPresent(authenticationMethods, forKey: .authenticationMethods)
        try container.encode(all, forKey: .all)
    }
}
