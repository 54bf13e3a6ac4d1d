#if Hummingbird // the Hummingbird package trait
import AuthFlow

/// The access token of a request: one `Authorization` field with the
/// `Bearer` or `DPoP` scheme (RFC 6750 §2.1, RFC 9449 §7.1), a token68
/// after it. Tokens in the query or the body are not accepted.
enum AuthorizationHeader {
    /// The scheme and token; nil when there is no `Authorization` field.
    static func credentials(_ values: [String]) throws(AccessFailure) -> Credentials? {
        guard let value = values.first else { return nil }
        guard values.count == 1 else { throw .invalidRequest("the request has more than one Authorization field") }
        let utf8 = value.utf8
        guard let space = utf8.firstIndex(of: UInt8(ascii: " ")) else { throw .invalidRequest("the Authorization field has no token") }
        // The scheme is case-insensitive (RFC 9110 §11.1); both names are ASCII.
        let scheme: AuthorizationScheme
        if equalsIgnoringASCIICase(utf8[..<space], "bearer") {
            scheme = .bearer
        } else if equalsIgnoringASCIICase(utf8[..<space], "dpop") {
            scheme = .dpop
        } else {
            throw .invalidRequest("the Authorization scheme is neither Bearer nor DPoP")
        }
        var start = utf8.index(after: space)
        while start < utf8.endIndex, utf8[start] == UInt8(ascii: " ") { start = utf8.index(after: start) }
        // token68 (RFC 9110 §11.2). A JWS (two dots) is checked by its own
        // decoding, which accepts less than token68; when that fails, the
        // middleware asks `Token68.matches(_:)` which error to answer.
        let token = Substring(utf8[start...])
        let compactJWS = CompactJWS.hasTwoDots(token)
        guard !token.isEmpty, compactJWS || Token68.matches(token) else {
            throw .invalidRequest("the access token is not a token68", scheme: scheme)
        }
        return Credentials(scheme: scheme, token: token, isCompactJWS: compactJWS)
    }

    /// An `Authorization` field's scheme and token, and whether the token has a JWS's two dots.
    struct Credentials {
        let scheme: AuthorizationScheme
        /// The token, in the field's value: a JWT is verified there, without a copy.
        let token: Substring
        let isCompactJWS: Bool
    }

    /// Whether `bytes` spell `lowercase` (ASCII lowercase letters) in any case.
    private static func equalsIgnoringASCIICase(_ bytes: Substring.UTF8View, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        var index = 0
        for byte in bytes {
            // Setting 0x20 lowercases an ASCII letter; other bytes cannot become one of `lowercase`'s letters.
            guard byte | 0x20 == lowercase.utf8Start[index] else { return false }
            index += 1
        }
        return true
    }
}
#endif
