import AuthFlowStoredDate

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The claims of a verified ID token (OIDC Core §2), typed: a view over the
/// token's payload, read in place (`CompactJWS`).
///
/// Each string property is made from the payload when asked (``all`` parses
/// the whole payload), so verifying costs no more than the OIDC rules need.
/// Read a property once and keep the value where it matters.
public struct IDTokenClaims: Sendable, Equatable, Codable, CustomReflectable {
    /// `exp`.
    public let expiresAt: Date
    /// `iat`.
    public let issuedAt: Date
    /// `auth_time`, when present.
    public let authTime: Date?
    /// The payload.
    private let claims: JSONObjectReader

    /// `iss`.
    public var issuer: String { claims.string("iss") ?? "" }
    /// `sub`: the user's stable identifier at the issuer.
    public var subject: String { claims.string("sub") ?? "" }
    /// `aud`, always as a list.
    public var audience: [String] { claims.audience }
    /// `nonce`, when present.
    public var nonce: String? { claims.string("nonce") }
    /// `azp`, when present.
    public var authorizedParty: String? { claims.string("azp") }
    /// `at_hash`, when present.
    public var accessTokenHash: String? { claims.string("at_hash") }
    /// `acr`, when present.
    public var authenticationContextClass: String? { claims.string("acr") }
    /// `amr`, when present.
    public var authenticationMethods: [String]? { claims.value("amr")?.arrayValue?.compactMap(\.stringValue) }
    /// `name`, when present as a string.
    public var name: String? { claims.string("name") }
    /// `email`, when present as a string.
    public var email: String? { claims.string("email") }
    /// `preferred_username`, when present as a string.
    public var preferredUsername: String? { claims.string("preferred_username") }

    /// The claim `name` when it is a string, read in place.
    func string(_ name: String) -> String? { claims.string(name) }

    /// Whether the payload has a claim `name`, of any type.
    func hasClaim(_ name: String) -> Bool { claims.contains(name) }

    /// Every claim, including ones not modelled above.
    ///
    /// This is parsed from the token's payload each time it is read (a few
    /// microseconds; the payload was checked to be valid JSON during
    /// verification). Read it once and keep it.
    public var all: [String: JSONMemberValue] { claims.all }

    /// Reads the claims of a JWT payload, requiring the members OIDC requires.
    public init(claims: [String: JSONMemberValue]) throws {
        try self.init(JSONObjectReader(claims))
    }

    /// The claims of a token's payload, after the presence and type rules.
    init(_ claims: JSONObjectReader) throws {
        self.claims = claims
        (expiresAt, issuedAt, authTime) = try Self.check(claims)
    }

    /// The presence and type rules, in one order, each with its reason; returns the dates.
    private static func check(_ claims: JSONObjectReader) throws -> (expiresAt: Date, issuedAt: Date, authTime: Date?) {
        func typed(_ name: String, _ reason: AuthFlowError.Reason, string: Bool) throws -> JSONObjectReader.Kind {
            let kind = claims.kind(name)
            switch kind {
            case .absent: break
            case .string where string, .number where !string: break
            default: throw AuthFlowError.idToken(reason, "the \(name) claim is not a \(string ? "string" : "number")")
            }
            return kind
        }
        guard try typed("iss", .issuer, string: true) != .absent else { throw AuthFlowError.idToken(.issuer, "the ID token has no iss") }
        guard case .string(empty: false) = try typed("sub", .subject, string: true) else {
            throw AuthFlowError.idToken(.subject, "the ID token has no sub")
        }
        guard isAudience(claims) else { throw AuthFlowError.idToken(.audience, "the ID token has no valid aud") }
        guard try typed("exp", .expired, string: false) != .absent, let expiresAt = claims.number("exp") else {
            throw AuthFlowError.idToken(.expired, "the ID token has no exp")
        }
        guard try typed("iat", .issuedAt, string: false) != .absent, let issuedAt = claims.number("iat") else {
            throw AuthFlowError.idToken(.issuedAt, "the ID token has no iat")
        }
        _ = try typed("auth_time", .authTime, string: false)
        _ = try typed("nonce", .nonce, string: true)
        _ = try typed("azp", .authorizedParty, string: true)
        _ = try typed("at_hash", .atHash, string: true)
        _ = try typed("acr", .malformed, string: true)
        return (
            Date(timeIntervalSince1970: expiresAt), Date(timeIntervalSince1970: issuedAt),
            claims.number("auth_time").map(Date.init(timeIntervalSince1970:))
        )
    }

    /// Whether `aud` is valid: one string, or a non-empty array of strings.
    private static func isAudience(_ claims: JSONObjectReader) -> Bool {
        if case .string = claims.kind("aud") { return true }
        return switch claims.value("aud") {
        case .string?: true
        case .array(let values)?: !values.isEmpty && values.allSatisfy { $0.stringValue != nil }
        default: false
        }
    }

    // MARK: The rules' comparisons, without making strings where bytes will do

    /// Whether `iss` equals `expected`.
    func issuerEquals(_ expected: String) -> Bool { claims.string("iss", equals: expected) }

    /// Whether `clientID` is one of the audiences.
    func audienceContains(_ clientID: String) -> Bool { claims.audienceContains(clientID) }

    /// How many audiences there are.
    var audienceCount: Int {
        if case .string = claims.kind("aud") { return 1 }
        return audience.count
    }

    /// Whether `azp` is present.
    var hasAuthorizedParty: Bool { claims.contains("azp") }

    /// Whether `azp` equals `clientID` (false when absent).
    func authorizedPartyEquals(_ clientID: String) -> Bool { claims.string("azp", equals: clientID) }

    /// Whether `nonce` is present and equal to `expected`, compared in constant time; nil when absent.
    func nonceMatches(_ expected: String) -> Bool? { nonce.map { constantTimeEquals($0, expected) } }

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

    /// Decodes what ``encode(to:)`` wrote. The stored typed values win over
    /// `all` where the two differ, as they did when both were stored.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        var all = try container.decode([String: JSONMemberValue].self, forKey: .all)
        func keep(_ name: String, _ value: JSONMemberValue?) {
            guard let value else { return }
            if name == "aud", case .array(let values) = value, values.count == 1, all[name] == values.first { return }
            if all[name] != value { all[name] = value }
        }
        // The stored dates are the claims as the stored form can write them
        // (to the millisecond, from 1583 to 9999): a numeric claim in `all`
        // that the stored date writes the same is the exact one, and is kept,
        // so that a record read and saved again is the same record. A stored
        // date that says something else (an edited record) wins.
        func keepDate(_ name: String, _ date: Date?) {
            guard let date else { return }
            if let exact = all[name]?.numberValue,
                StoredDate.write(Date(timeIntervalSince1970: exact)) == StoredDate.write(date)
            {
                return
            }
            all[name] = .number(date.timeIntervalSince1970)
        }
        keep("iss", .string(try container.decode(String.self, forKey: .issuer)))
        keep("sub", .string(try container.decode(String.self, forKey: .subject)))
        keep("aud", .array(try container.decode([String].self, forKey: .audience).map(JSONMemberValue.string)))
        keepDate("exp", try container.decode(Date.self, forKey: .expiresAt))
        keepDate("iat", try container.decode(Date.self, forKey: .issuedAt))
        keepDate("auth_time", try container.decodeIfPresent(Date.self, forKey: .authTime))
        keep("nonce", try container.decodeIfPresent(String.self, forKey: .nonce).map(JSONMemberValue.string))
        keep("azp", try container.decodeIfPresent(String.self, forKey: .authorizedParty).map(JSONMemberValue.string))
        keep("at_hash", try container.decodeIfPresent(String.self, forKey: .accessTokenHash).map(JSONMemberValue.string))
        keep("acr", try container.decodeIfPresent(String.self, forKey: .authenticationContextClass).map(JSONMemberValue.string))
        if let methods = try container.decodeIfPresent([String].self, forKey: .authenticationMethods),
            all["amr"]?.arrayValue?.compactMap(\.stringValue) != methods
        {
            all["amr"] = .array(methods.map(JSONMemberValue.string))
        }
        do {
            try self.init(claims: all)
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
