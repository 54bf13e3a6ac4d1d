/// What a JWK that stands for a public key may hold, per key type (RFC 7518
/// §6, RFC 8037 §2): one set of rules for the client (keys of a JWK Set) and
/// the provider (a DPoP proof's `jwk`, a client's registered keys).
///
/// A public JWK carries none of its type's private members: RSA `d`, `p`,
/// `q`, `dp`, `dq`, `qi`, `oth` (any of them, `q` alone factors `n`); EC and
/// OKP `d`. A symmetric key (`kty` `oct`) is never a public key.
package enum PublicJWKRules {
    /// Why a JWK is not a usable public key.
    package enum Violation: Sendable, Equatable, CustomStringConvertible {
        /// It carries `member`, part of the private key.
        case privateMember(String)
        /// It is a symmetric key (`kty` `oct`).
        case symmetric
        /// Its `kty` is missing or not `RSA`, `EC` or `OKP`.
        case unsupportedType

        package var description: String {
            switch self {
            case .privateMember(let member): "it carries the private member \"\(member)\""
            case .symmetric: "it is a symmetric key (kty oct)"
            case .unsupportedType: "its kty is not RSA, EC or OKP"
            }
        }
    }

    /// The private members of each key type.
    package static let privateMembers: [String: [String]] = [
        "RSA": ["d", "p", "q", "dp", "dq", "qi", "oth"],
        "EC": ["d"],
        "OKP": ["d"],
    ]

    /// The first rule `jwk` breaks, or nil for a public key of a supported type.
    package static func violation(in jwk: [String: JSONMemberValue]) -> Violation? {
        guard let kty = jwk["kty"]?.stringValue else { return .unsupportedType }
        if kty == "oct" { return .symmetric }
        guard let members = privateMembers[kty] else { return .unsupportedType }
        return members.first { jwk[$0] != nil }.map(Violation.privateMember)
    }
}
