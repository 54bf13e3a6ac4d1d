#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Crypto
import Foundation

/// What a back-channel logout finds a session by: SHA-256 of the issuer
/// and the ID token's `sub`, and of the issuer and its `sid`. The table
/// never holds who the user is, only these keys.
struct SessionIdentityKeys: Sendable {
    var subject: Data?
    var sid: Data?

    init(subject: Data?, sid: Data?) {
        self.subject = subject
        self.sid = sid
    }

    /// The keys of the session `credentials` belong to (nil without an ID token).
    init(_ credentials: OAuthCredentials) {
        guard let claims = credentials.idToken else {
            self.init(subject: nil, sid: nil)
            return
        }
        let sid: String?
        if case .string(let value)? = claims.all["sid"] { sid = value } else { sid = nil }
        self.init(subject: Self.key(claims.issuer, "sub", claims.subject), sid: sid.map { Self.key(claims.issuer, "sid", $0) })
    }

    /// The key of `value` (a `sub` or a `sid`) at `issuer`.
    static func key(_ issuer: String, _ kind: String, _ value: String) -> Data {
        Data(SHA256.hash(data: Data("\(issuer)\u{0}\(kind)\u{0}\(value)".utf8)))
    }
}
#endif
