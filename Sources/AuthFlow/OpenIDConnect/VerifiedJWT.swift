#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
    /// The token, read in place.
    let jws: CompactJWS

    init(algorithm: String, jws: CompactJWS, expiresAt: Date, issuedAt: Date?) {
        self.algorithm = algorithm
        self.jws = jws
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }

    /// The protected header, parsed at each call.
    public var header: [String: JSONMemberValue] { jws.header }

    /// The `typ` header member, when it is a string (`at+jwt` for an RFC 9068 access token).
    public var type: String? { jws.type }

    /// Whether ``type`` is the media type `name` (such as `at+jwt`), with or
    /// without its `application/` prefix, in any case (RFC 7515 §4.1.9,
    /// RFC 8725 §3.11). The one reading of an explicitly typed JWT.
    package func hasType(_ name: String) -> Bool {
        guard let type = type?.lowercased() else { return false }
        return type == name || type == "application/" + name
    }

    /// Every claim, parsed at each call.
    public var claims: [String: JSONMemberValue] { jws.claims }

    /// The payload, read in place.
    package var claimMembers: JSONObjectReader { jws.claimMembers }

    /// The claim `name`, whatever its JSON type; nil when the token has none.
    public func claim(_ name: String) -> JSONMemberValue? { jws.claimMembers.value(name) }

    /// The claim `name` when it is a string.
    public func string(_ name: String) -> String? { jws.claimMembers.string(name) }

    /// The claim `name` when it is a number.
    public func number(_ name: String) -> Double? { jws.claimMembers.number(name) }

    /// Whether the token has a claim `name` (of any type, `null` included).
    public func hasClaim(_ name: String) -> Bool { jws.claimMembers.contains(name) }

    /// `aud`, as a list.
    public var audience: [String] { jws.claimMembers.audience }

    /// `iss`.
    public var issuer: String { string("iss") ?? "" }
    /// `sub`, when present.
    public var subject: String? { string("sub") }

    /// Equal when algorithm, expiry, header and claims are.
    public static func == (lhs: VerifiedJWT, rhs: VerifiedJWT) -> Bool {
        lhs.algorithm == rhs.algorithm && lhs.expiresAt == rhs.expiresAt && lhs.header == rhs.header && lhs.claims == rhs.claims
    }
}
