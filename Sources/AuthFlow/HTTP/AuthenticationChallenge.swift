#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1, §11.2):
/// an auth scheme with either a `token68` or auth parameters.
///
/// The one reader of the field in the engine: DPoP nonces (RFC 9449 §8, §9),
/// bearer errors (RFC 6750 §3) and client authentication (RFC 6749 §5.2) all
/// read it through ``parse(_:)``. Scheme and parameter names are compared
/// case-insensitively (kept lowercased here); parameter values are tokens or
/// quoted strings with `\` escapes removed.
package struct AuthenticationChallenge: Sendable, Equatable {
    /// The auth scheme, lowercased (`bearer`, `dpop`, `basic`).
    package let scheme: String
    /// The `token68` form of the credentials, when the challenge has one.
    package let token68: String?
    /// The auth parameters in order, names lowercased.
    package let parameters: [(name: String, value: String)]

    package init(scheme: String, token68: String? = nil, parameters: [(name: String, value: String)] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// The value of the parameter `name` (any case).
    package subscript(_ name: String) -> String? {
        let wanted = name.lowercased()
        return parameters.first { $0.name == wanted }?.value
    }

    /// Whether the scheme is `name` (any case).
    package func isScheme(_ name: String) -> Bool { scheme == name.lowercased() }

    package static func == (lhs: AuthenticationChallenge, rhs: AuthenticationChallenge) -> Bool {
        lhs.scheme == rhs.scheme && lhs.token68 == rhs.token68
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name) && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// Every challenge of `response`'s `WWW-Authenticate` fields; several
    /// fields are read as one list, joined with commas (RFC 9110 §5.3).
    package static func challenges(in response: HTTPTransportResponse) -> [AuthenticationChallenge] {
        let fields = response.headers.filter { $0.name.equalsIgnoringASCIICase("WWW-Authenticate") }.map(\.value)
        return fields.isEmpty ? [] : parse(fields.joined(separator: ", "))
    }

    /// The challenges in a field value, in order. Parsing stops at the first
    /// syntax error: the challenges before it are returned, none after it
    /// (a malformed tail is never guessed at).
    package static func parse(_ fieldValue: String) -> [AuthenticationChallenge] {
        var reader = ChallengeReader(Array(fieldValue.utf8))
        return reader.challenges()
    }
}
