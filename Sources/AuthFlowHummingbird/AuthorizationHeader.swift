#if Hummingbird // the Hummingbird package trait
/// The access token of a request: one `Authorization` field with the
/// `Bearer` or `DPoP` scheme (RFC 6750 §2.1, RFC 9449 §7.1), a token68
/// after it. Tokens in the query or the body are not accepted.
enum AuthorizationHeader {
    /// The scheme and token; nil when there is no `Authorization` field.
    static func credentials(_ values: [String]) throws(AccessFailure) -> (scheme: AuthorizationScheme, token: String)? {
        guard let value = values.first else { return nil }
        guard values.count == 1 else { throw .invalidRequest("the request has more than one Authorization field") }
        guard let space = value.firstIndex(of: " ") else { throw .invalidRequest("the Authorization field has no token") }
        let schemeName = value[..<space].lowercased()
        let token = value[value.index(after: space)...].drop { $0 == " " }
        let scheme: AuthorizationScheme
        switch schemeName {
        case "bearer": scheme = .bearer
        case "dpop": scheme = .dpop
        default: throw .invalidRequest("the Authorization scheme is neither Bearer nor DPoP")
        }
        // token68 (RFC 9110 §11.2).
        guard !token.isEmpty, token.utf8.allSatisfy(isToken68) else {
            throw .invalidRequest("the access token is not a token68", scheme: scheme)
        }
        return (scheme, String(token))
    }

    private static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"),
            UInt8(ascii: "="):
            true
        default: false
        }
    }
}
#endif
