#if Hummingbird // the Hummingbird package trait
public import AuthFlow
import Foundation

/// The claims of a verified access token (a JWT's payload, or an
/// introspection answer), read by name or decoded into the app's own type.
///
/// A JWT's claims are read where they lie in its payload: a value is made
/// only for the claim asked for.
public struct AccessTokenClaims: Sendable {
    private let source: Source

    private enum Source: Sendable {
        case jwt(VerifiedJWT)
        case members([String: JSONMemberValue])
    }

    init(_ members: [String: JSONMemberValue]) {
        source = .members(members)
    }

    init(_ jwt: VerifiedJWT) {
        source = .jwt(jwt)
    }

    /// The claim `name` when it is a string.
    public func string(_ name: String) -> String? {
        switch source {
        case .jwt(let jwt): jwt.string(name)
        case .members(let members): members[name]?.stringValue
        }
    }

    /// The claim `name` when it is a number.
    public func number(_ name: String) -> Double? {
        switch source {
        case .jwt(let jwt): jwt.number(name)
        case .members(let members): members[name]?.numberValue
        }
    }

    /// The claim `name` when it is a boolean.
    public func bool(_ name: String) -> Bool? { value(name)?.boolValue }

    /// The claim `name` when it is an array of strings (other elements are skipped).
    public func strings(_ name: String) -> [String]? { value(name)?.arrayValue?.compactMap(\.stringValue) }

    /// The claim `name`, whatever its JSON type.
    public func value(_ name: String) -> JSONMemberValue? {
        switch source {
        case .jwt(let jwt): jwt.claim(name)
        case .members(let members): members[name]
        }
    }

    /// Whether `scope` grants `required` (one of its space-separated scope tokens).
    func grants(_ required: String) -> Bool {
        switch source {
        case .jwt(let jwt): jwt.claim("scope", containsWord: required)
        case .members(let members): members["scope"]?.stringValue.map { VerifiedJWT.words(of: $0, contain: required) } ?? false
        }
    }

    /// Every claim.
    var all: [String: JSONMemberValue] {
        switch source {
        case .jwt(let jwt): jwt.claims
        case .members(let members): members
        }
    }

    /// Every claim decoded into `type` (a `Decodable` struct of the claims the app reads).
    /// - Throws: `DecodingError` when the claims do not fit `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(all))
    }
}
#endif
