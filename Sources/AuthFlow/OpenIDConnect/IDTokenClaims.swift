public import Foundation

/// The claims of a verified ID token (OIDC Core §2), typed.
///
/// Claims verified by ``IDTokenVerifier`` stay in the token's decoded payload
/// until they are read: each string property is made from it when asked
/// (``all`` parses the whole payload), so verifying costs no more than the
/// OIDC rules need. Read a property once and keep the value where it matters.
public struct IDTokenClaims: Sendable, Equatable, Codable, CustomReflectable {
    /// `exp`.
    public let expiresAt: Date
    /// `iat`.
    public let issuedAt: Date
    /// `auth_time`, when present.
    public let authTime: Date?
    private let storage: Storage

    /// Where the other claims are.
    private enum Storage: Sendable {
        /// Read from a dictionary (``init(claims:)``) or from storage.
        case typed(TypedClaims)
        /// Places in the payload of a verified token.
        case payload(PayloadClaims)
    }

    /// The claims as values (a class, like ``PayloadClaims``, so that copies are one reference).
    private final class TypedClaims: Sendable {
        let issuer: String
        let subject: String
        let audience: [String]
        let nonce, authorizedParty, accessTokenHash, authenticationContextClass: String?
        let authenticationMethods: [String]?
        let name, email, preferredUsername: String?
        let all: [String: JSONMemberValue]

        init(_ values: IDTokenClaimValues, audience: [String], all: [String: JSONMemberValue]) {
            issuer = values.iss.value ?? ""
            subject = values.sub.value ?? ""
            self.audience = audience
            nonce = values.nonce.value
            authorizedParty = values.azp.value
            accessTokenHash = values.atHash.value
            authenticationContextClass = values.acr.value
            authenticationMethods = values.amr
            name = values.name
            email = values.email
            preferredUsername = values.preferredUsername
            self.all = all
        }
    }

    /// `iss`.
    public var issuer: String {
        switch storage {
        case .typed(let claims): claims.issuer
        case .payload(let claims): claims.string(claims.iss) ?? ""
        }
    }
    /// `sub`: the user's stable identifier at the issuer.
    public var subject: String {
        switch storage {
        case .typed(let claims): claims.subject
        case .payload(let claims): claims.string(claims.sub) ?? ""
        }
    }
    /// `aud`, always as a list.
    public var audience: [String] {
        switch storage {
        case .typed(let claims): claims.audience
        case .payload(let claims): claims.audience
        }
    }
    /// `nonce`, when present.
    public var nonce: String? { text(\.nonce, \.nonce) }
    /// `azp`, when present.
    public var authorizedParty: String? { text(\.authorizedParty, \.azp) }
    /// `at_hash`, when present.
    public var accessTokenHash: String? { text(\.accessTokenHash, \.atHash) }
    /// `acr`, when present.
    public var authenticationContextClass: String? { text(\.authenticationContextClass, \.acr) }
    /// `amr`, when present.
    public var authenticationMethods: [String]? {
        switch storage {
        case .typed(let claims): claims.authenticationMethods
        case .payload(let claims): claims.amr.map { claims.value(at: $0).arrayValue?.compactMap(\.stringValue) ?? [] }
        }
    }
    /// `name`, when present as a string.
    public var name: String? { text(\.name, \.name) }
    /// `email`, when present as a string.
    public var email: String? { text(\.email, \.email) }
    /// `preferred_username`, when present as a string.
    public var preferredUsername: String? { text(\.preferredUsername, \.preferredUsername) }

    /// Every claim, including ones not modelled above.
    ///
    /// For a token verified by ``IDTokenVerifier``, this is parsed from the
    /// token's payload each time it is read (a few microseconds; the payload
    /// was checked to be valid JSON during verification). Read it once and keep it.
    public var all: [String: JSONMemberValue] {
        switch storage {
        case .typed(let claims): claims.all
        case .payload(let claims): claims.withPayload { JSONParser.object($0) } ?? [:]
        }
    }

    private func text(_ typed: KeyPath<TypedClaims, String?>, _ payload: KeyPath<PayloadClaims, PayloadClaims.Text>) -> String? {
        switch storage {
        case .typed(let claims): claims[keyPath: typed]
        case .payload(let claims): claims.string(claims[keyPath: payload])
        }
    }

    /// Reads the claims of a JWT payload, requiring the members OIDC requires.
    public init(claims: [String: JSONMemberValue]) throws {
        try self.init(IDTokenClaimValues(claims), all: claims)
    }

    private init(_ values: IDTokenClaimValues, all: [String: JSONMemberValue]) throws {
        let checked = try Self.check(
            iss: values.iss, sub: values.sub, isEmpty: \.isEmpty, audience: values.aud.value,
            exp: values.exp, iat: values.iat, authTime: values.authTime,
            nonce: values.nonce, azp: values.azp, atHash: values.atHash, acr: values.acr)
        (expiresAt, issuedAt, authTime) = (checked.expiresAt, checked.issuedAt, checked.authTime)
        storage = .typed(TypedClaims(values, audience: checked.audience, all: all))
    }

    /// Takes the claims of a scanned payload, after the same checks as ``init(claims:)``.
    init(_ claims: PayloadClaims) throws {
        func reading(_ text: PayloadClaims.Text) -> IDTokenClaimValues.Reading<Range<Int>> {
            switch text {
            case .absent: .absent
            case .string(let range, _): .value(range)
            case .wrongType: .wrongType
            }
        }
        let audience: Void?
        switch claims.aud {
        case .string, .array: audience = ()
        case .absent, .wrongType: audience = nil
        }
        // A JSON string's range holds its quotes: two bytes means empty.
        let checked = try Self.check(
            iss: reading(claims.iss), sub: reading(claims.sub), isEmpty: { $0.count == 2 }, audience: audience,
            exp: claims.exp, iat: claims.iat, authTime: claims.authTime,
            nonce: reading(claims.nonce), azp: reading(claims.azp), atHash: reading(claims.atHash),
            acr: reading(claims.acr))
        (expiresAt, issuedAt, authTime) = (checked.expiresAt, checked.issuedAt, checked.authTime)
        storage = .payload(claims)
    }

    /// The presence and type rules, in one order for both representations, each
    /// with its reason; returns the audience (`nil` there: not a valid `aud`) and the dates.
    private static func check<S, A>(
        iss: IDTokenClaimValues.Reading<S>, sub: IDTokenClaimValues.Reading<S>, isEmpty: (S) -> Bool,
        audience: A?, exp: IDTokenClaimValues.Reading<Double>, iat: IDTokenClaimValues.Reading<Double>,
        authTime: IDTokenClaimValues.Reading<Double>, nonce: IDTokenClaimValues.Reading<S>,
        azp: IDTokenClaimValues.Reading<S>, atHash: IDTokenClaimValues.Reading<S>,
        acr: IDTokenClaimValues.Reading<S>
    ) throws -> (audience: A, expiresAt: Date, issuedAt: Date, authTime: Date?) {
        // Inlined: it runs for ten claims on every token.
        @inline(__always)
        func typed<T>(
            _ reading: IDTokenClaimValues.Reading<T>, _ name: StaticString, _ reason: AuthFlowError.Reason,
            _ kind: StaticString
        ) throws -> T? {
            switch reading {
            case .absent: return nil
            case .value(let value): return value
            case .wrongType: throw AuthFlowError.idToken(reason, "the \(name) claim is not a \(kind)")
            }
        }
        guard try typed(iss, "iss", .issuer, "string") != nil else { throw AuthFlowError.idToken(.issuer, "the ID token has no iss") }
        guard let subject = try typed(sub, "sub", .subject, "string"), !isEmpty(subject) else {
            throw AuthFlowError.idToken(.subject, "the ID token has no sub")
        }
        guard let audience else { throw AuthFlowError.idToken(.audience, "the ID token has no valid aud") }
        guard let expiresAt = try typed(exp, "exp", .expired, "number") else {
            throw AuthFlowError.idToken(.expired, "the ID token has no exp")
        }
        guard let issuedAt = try typed(iat, "iat", .issuedAt, "number") else {
            throw AuthFlowError.idToken(.issuedAt, "the ID token has no iat")
        }
        let authTime = try typed(authTime, "auth_time", .authTime, "number")
        _ = try typed(nonce, "nonce", .nonce, "string")
        _ = try typed(azp, "azp", .authorizedParty, "string")
        _ = try typed(atHash, "at_hash", .atHash, "string")
        _ = try typed(acr, "acr", .malformed, "string")
        return (
            audience, Date(timeIntervalSince1970: expiresAt), Date(timeIntervalSince1970: issuedAt),
            authTime.map(Date.init(timeIntervalSince1970:))
        )
    }

    // MARK: The rules' comparisons, without making strings where bytes will do

    /// Whether `iss` equals `expected`.
    func issuerEquals(_ expected: String) -> Bool {
        switch storage {
        case .typed(let claims): claims.issuer == expected
        case .payload(let claims): claims.equals(claims.iss, expected)
        }
    }

    /// Whether `clientID` is one of the audiences.
    func audienceContains(_ clientID: String) -> Bool {
        switch storage {
        case .typed(let claims): claims.audience.contains(clientID)
        case .payload(let claims): claims.audienceContains(clientID)
        }
    }

    /// How many audiences there are.
    var audienceCount: Int {
        switch storage {
        case .typed(let claims): claims.audience.count
        case .payload(let claims): claims.audienceCount
        }
    }

    /// Whether `azp` is present.
    var hasAuthorizedParty: Bool {
        switch storage {
        case .typed(let claims): claims.authorizedParty != nil
        case .payload(let claims): claims.azp != .absent
        }
    }

    /// Whether `azp` equals `clientID` (false when absent).
    func authorizedPartyEquals(_ clientID: String) -> Bool {
        switch storage {
        case .typed(let claims): claims.authorizedParty == clientID
        case .payload(let claims): claims.equals(claims.azp, clientID)
        }
    }

    /// Whether `nonce` is present and equal to `expected`, compared in constant time; nil when absent.
    func nonceMatches(_ expected: String) -> Bool? {
        switch storage {
        case .typed(let claims): claims.nonce.map { constantTimeEquals($0, expected) }
        case .payload(let claims): claims.constantTimeEquals(claims.nonce, expected)
        }
    }

    /// The claims, for `print` and `dump`; never the token they were read from.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer, "subject": subject, "audience": audience, "expiresAt": expiresAt, "issuedAt": issuedAt,
                "authTime": authTime as Any, "nonce": nonce as Any, "authorizedParty": authorizedParty as Any,
                "accessTokenHash": accessTokenHash as Any, "authenticationContextClass": authenticationContextClass as Any,
                "authenticationMethods": authenticationMethods as Any, "all": all,
            ] as KeyValuePairs<String, Any>, displayStyle: .struct)
    }

    // MARK: Equatable and Codable: the same as when `all` was a stored dictionary.

    /// Claims are equal when every claim is.
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
        let all = try container.decode([String: JSONMemberValue].self, forKey: .all)
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
            try self.init(values, all: all)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "stored ID token claims are incomplete"))
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
