#if Hummingbird // the Hummingbird package trait
public import AuthFlow
import Foundation

/// The claims of a verified access token (a JWT's payload, or an
/// introspection answer), read by name or decoded into the app's own type.
public struct AccessTokenClaims: Sendable {
    let members: [String: JSONMemberValue]

    init(_ members: [String: JSONMemberValue]) {
        self.members = members
    }

    /// The claim `name` when it is a string.
    public func string(_ name: String) -> String? { members[name]?.stringValue }

    /// The claim `name` when it is a number.
    public func number(_ name: String) -> Double? { members[name]?.numberValue }

    /// The claim `name` when it is a boolean.
    public func bool(_ name: String) -> Bool? { members[name]?.boolValue }

    /// The claim `name` when it is an array of strings (other elements are skipped).
    public func strings(_ name: String) -> [String]? { members[name]?.arrayValue?.compactMap(\.stringValue) }

    /// The claim `name`, whatever its JSON type.
    public func value(_ name: String) -> JSONMemberValue? { members[name] }

    /// Every claim decoded into `type` (a `Decodable` struct of the claims the app reads).
    /// - Throws: `DecodingError` when the claims do not fit `type`.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(members))
    }
}
#endif
