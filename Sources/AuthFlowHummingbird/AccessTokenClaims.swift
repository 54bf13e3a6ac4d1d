#if Hummingbird // the Hummingbird package trait
public import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The claims of a verified access token (a JWT's payload, or an
/// introspection answer), read by name or decoded into the app's own type.
///
/// The claims are read where they lie (`JSONObjectReader`, the reader of
/// every signed token): a value is made only for the claim asked for.
public struct AccessTokenClaims: Sendable {
    private let claims: JSONObjectReader

    /// The members of an introspection answer.
    init(_ members: [String: JSONMemberValue]) {
        claims = JSONObjectReader(members)
    }

    /// The payload of a verified JWT.
    init(_ jwt: VerifiedJWT) {
        claims = jwt.claimMembers
    }

    /// The claim `name` when it is a string.
    public func string(_ name: String) -> String? { claims.string(name) }

    /// The claim `name` when it is a number.
    public func number(_ name: String) -> Double? { claims.number(name) }

    /// The claim `name` when it is a boolean.
    public func bool(_ name: String) -> Bool? { value(name)?.boolValue }

    /// The claim `name` when it is an array of strings (other elements are skipped).
    public func strings(_ name: String) -> [String]? { value(name)?.arrayValue?.compactMap(\.stringValue) }

    /// The claim `name`, whatever its JSON type.
    public func value(_ name: String) -> JSONMemberValue? { claims.value(name) }

    /// Whether `scope` grants `required` (one of its space-separated scope tokens).
    func grants(_ required: String) -> Bool { claims.string("scope", containsWord: required) }

    /// Every claim.
    var all: [String: JSONMemberValue] { claims.all }

    /// Every claim decoded into `type` (a `Decodable` struct of the claims the app reads).
    /// - Throws: `DecodingError` when the claims do not fit `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(all))
    }
}
#endif
