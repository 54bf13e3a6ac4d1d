public import Foundation

/// A JWT whose signature and registered claims ``JWTVerifier`` verified.
///
/// Claims are read where they lie in the decoded payload: ``string(_:)``,
/// ``number(_:)`` and ``claim(_:)`` make a value only for the claim asked
/// for, and ``claims`` parses every claim at each call. Read the claims a
/// rule needs by name; keep ``claims`` for when all of them are wanted.
public struct VerifiedJWT: Sendable, Equatable {
    /// The algorithm that signed it.
    public let algorithm: String
    /// `exp`.
    public let expiresAt: Date
    /// `iat`, when the token has it.
    public let issuedAt: Date?
    let contents: Contents

    /// The header and payload: as the scan read them, or parsed by the full path.
    enum Contents: Sendable {
        case scanned(ScannedJWTClaims, type: String?)
        case parsed(header: [String: JSONMemberValue], claims: [String: JSONMemberValue])
    }

    init(algorithm: String, contents: Contents, expiresAt: Date, issuedAt: Date?) {
        self.algorithm = algorithm
        self.contents = contents
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }

    /// The protected header, parsed at each call.
    public var header: [String: JSONMemberValue] {
        switch contents {
        case .scanned(let scanned, _): scanned.header
        case .parsed(let header, _): header
        }
    }

    /// The `typ` header member, when it is a string (`at+jwt` for an RFC 9068 access token).
    public var type: String? {
        switch contents {
        case .scanned(_, let type): type
        case .parsed(let header, _): header["typ"]?.stringValue
        }
    }

    /// Every claim, parsed at each call.
    public var claims: [String: JSONMemberValue] {
        switch contents {
        case .scanned(let scanned, _): scanned.claims
        case .parsed(_, let claims): claims
        }
    }

    /// The claim `name`, whatever its JSON type; nil when the token has none.
    public func claim(_ name: String) -> JSONMemberValue? { contents.value(name) }

    /// The claim `name` when it is a string.
    public func string(_ name: String) -> String? { contents.string(name) }

    /// The claim `name` when it is a number.
    public func number(_ name: String) -> Double? { contents.number(name) }

    /// Whether the token has a claim `name` (of any type, `null` included).
    public func hasClaim(_ name: String) -> Bool { contents.contains(name) }

    /// `aud`, as a list.
    public var audience: [String] {
        switch contents {
        case .scanned(let scanned, _): scanned.audience
        case .parsed(_, let claims): Contents.audience(claims["aud"])
        }
    }

    /// Whether the claim `name` is a string with `word` among its
    /// space-separated words (``words(of:contain:)``), read in place.
    package func claim(_ name: String, containsWord word: String) -> Bool {
        switch contents {
        case .scanned(let scanned, _): scanned.claim(name, containsWord: word)
        case .parsed(_, let claims): claims[name]?.stringValue.map { Self.words(of: $0, contain: word) } ?? false
        }
    }

    /// Whether `word` is one of the space-separated words of `value` (a
    /// `scope`'s scope tokens, RFC 6749 §3.3): `value` split on spaces,
    /// empty words dropped, compared as strings.
    package static func words(of value: String, contain word: String) -> Bool {
        value.split(separator: " ").contains { $0 == word }
    }

    /// `iss`.
    public var issuer: String { string("iss") ?? "" }
    /// `sub`, when present.
    public var subject: String? { string("sub") }

    /// Equal when algorithm, expiry, header and claims are.
    public static func == (lhs: VerifiedJWT, rhs: VerifiedJWT) -> Bool {
        lhs.algorithm == rhs.algorithm && lhs.expiresAt == rhs.expiresAt && lhs.header == rhs.header && lhs.claims == rhs.claims
    }
}

extension VerifiedJWT.Contents {
    func value(_ name: String) -> JSONMemberValue? {
        switch self {
        case .scanned(let scanned, _): scanned.value(name)
        case .parsed(_, let claims): claims[name]
        }
    }

    func string(_ name: String) -> String? {
        switch self {
        case .scanned(let scanned, _): scanned.string(name)
        case .parsed(_, let claims): claims[name]?.stringValue
        }
    }

    func number(_ name: String) -> Double? {
        switch self {
        case .scanned(let scanned, _): scanned.number(name)
        case .parsed(_, let claims): claims[name]?.numberValue
        }
    }

    func contains(_ name: String) -> Bool {
        switch self {
        case .scanned(let scanned, _): scanned.contains(name)
        case .parsed(_, let claims): claims[name] != nil
        }
    }

    func string(_ name: String, equals expected: String) -> Bool {
        switch self {
        case .scanned(let scanned, _): scanned.string(name, equals: expected)
        case .parsed(_, let claims): claims[name]?.stringValue == expected
        }
    }

    func audienceContains(_ audience: String) -> Bool {
        switch self {
        case .scanned(let scanned, _): scanned.audienceContains(audience)
        case .parsed(_, let claims): Self.audience(claims["aud"]).contains(audience)
        }
    }

    /// `aud` as a list: one string, or the strings of an array.
    static func audience(_ value: JSONMemberValue?) -> [String] {
        switch value {
        case .string(let value)?: [value]
        case .array(let values)?: values.compactMap(\.stringValue)
        default: []
        }
    }
}
