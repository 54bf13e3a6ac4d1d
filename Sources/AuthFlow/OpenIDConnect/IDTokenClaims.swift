import Foundation

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
    private let source: Source

    /// Where ``all`` comes from.
    private enum Source: Sendable {
        /// A compact JWS whose payload is parsed only when ``all`` is read.
        case token(String)
        /// Claims already parsed.
        case parsed([String: JSONValue])
    }

    /// Every claim, including ones not modelled above.
    ///
    /// For a token verified by ``IDTokenVerifier``, this is parsed from the
    /// token each time it is read (a few microseconds; the payload was checked
    /// to be valid JSON during verification), so that verifying costs no more
    /// than the typed claims need. Read it once and keep it.
    public var all: [String: JSONValue] {
        switch source {
        case .parsed(let claims): claims
        case .token(let token): (try? CompactJWS(token).claims) ?? [:]
        }
    }

    /// Reads the claims of a JWT payload, requiring the members OIDC requires.
    public init(claims: [String: JSONValue]) throws {
        try self.init(IDTokenClaimValues(claims), source: .parsed(claims))
    }

    /// Reads the claims scanned from a token's payload (see ``ScannedIDToken``).
    init(_ scanned: ScannedIDToken) throws {
        try self.init(scanned.claims, source: .token(scanned.token))
    }

    private init(_ values: IDTokenClaimValues, source: Source) throws {
        typealias Reading = IDTokenClaimValues.Reading
        func string(_ reading: Reading<String>, _ name: String, _ reason: AuthFlowError.Reason) throws -> String? {
            switch reading {
            case .absent: return nil
            case .value(let value): return value
            case .wrongType: throw AuthFlowError.idToken(reason, "the \(name) claim is not a string")
            }
        }
        func date(_ reading: Reading<Double>, _ name: String, _ reason: AuthFlowError.Reason) throws -> Date? {
            switch reading {
            case .absent: return nil
            case .value(let value): return Date(timeIntervalSince1970: value)
            case .wrongType: throw AuthFlowError.idToken(reason, "the \(name) claim is not a number")
            }
        }
        guard let issuer = try string(values.iss, "iss", .issuer) else { throw AuthFlowError.idToken(.issuer, "the ID token has no iss") }
        guard let subject = try string(values.sub, "sub", .subject), !subject.isEmpty else {
            throw AuthFlowError.idToken(.subject, "the ID token has no sub")
        }
        guard case .value(let audience) = values.aud else { throw AuthFlowError.idToken(.audience, "the ID token has no valid aud") }
        guard let expiresAt = try date(values.exp, "exp", .expired) else { throw AuthFlowError.idToken(.expired, "the ID token has no exp") }
        guard let issuedAt = try date(values.iat, "iat", .issuedAt) else { throw AuthFlowError.idToken(.issuedAt, "the ID token has no iat") }
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        authTime = try date(values.authTime, "auth_time", .authTime)
        nonce = try string(values.nonce, "nonce", .nonce)
        authorizedParty = try string(values.azp, "azp", .authorizedParty)
        accessTokenHash = try string(values.atHash, "at_hash", .atHash)
        authenticationContextClass = try string(values.acr, "acr", .malformed)
        authenticationMethods = values.amr
        name = values.name
        email = values.email
        preferredUsername = values.preferredUsername
        self.source = source
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

    // MARK: Equatable and Codable: the same as when `all` was a stored dictionary.

    public static func == (lhs: IDTokenClaims, rhs: IDTokenClaims) -> Bool {
        lhs.issuer == rhs.issuer && lhs.subject == rhs.subject && lhs.audience == rhs.audience
            && lhs.expiresAt == rhs.expiresAt && lhs.issuedAt == rhs.issuedAt && lhs.authTime == rhs.authTime
            && lhs.nonce == rhs.nonce && lhs.authorizedParty == rhs.authorizedParty
            && lhs.accessTokenHash == rhs.accessTokenHash && lhs.authenticationContextClass == rhs.authenticationContextClass
            && lhs.authenticationMethods == rhs.authenticationMethods && lhs.all == rhs.all
    }

    private enum CodingKeys: String, CodingKey {
        case issuer, subject, audience, expiresAt, issuedAt, authTime, nonce, authorizedParty, accessTokenHash
        case authenticationContextClass, authenticationMethods, all
    }

    /// Decodes what ``encode(to:)`` wrote; the typed claims are read again from `all`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let all = try container.decode([String: JSONValue].self, forKey: .all)
        var values = IDTokenClaimValues(all)
        // The stored typed values win over `all`, as they did when both were stored.
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
            try self.init(values, source: .parsed(all))
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
