#if PostgreSQL // the PostgreSQL package trait
import AuthFlow
import Crypto
import Foundation

/// What a back-channel logout finds a session by: HMAC-SHA256 of the issuer
/// and the ID token's `sub`, and of the issuer and its `sid`, under a key
/// derived from an encryption key (HKDF-SHA256). The table never holds who the
/// user is, and someone who can read it but has no key cannot test a guessed
/// user against it.
struct SessionIdentityKeys: Sendable {
    var subject: Data?
    var sid: Data?

    init(subject: Data?, sid: Data?) {
        self.subject = subject
        self.sid = sid
    }

    /// The keys of the session `credentials` belong to (nil without an ID
    /// token), made with `key` (the key the record is sealed with).
    init(_ credentials: OAuthCredentials, key: CredentialEncryptionKey) {
        guard let claims = credentials.idToken else {
            self.init(subject: nil, sid: nil)
            return
        }
        let sid: String?
        if case .string(let value)? = claims.all["sid"] { sid = value } else { sid = nil }
        self.init(
            subject: Self.key(claims.issuer, "sub", claims.subject, with: key),
            sid: sid.map { Self.key(claims.issuer, "sid", $0, with: key) })
    }

    /// The key of `value` (a `sub` or a `sid`) at `issuer`, made with `key`.
    static func key(_ issuer: String, _ kind: String, _ value: String, with key: CredentialEncryptionKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Self.message(issuer, kind, value), using: key.identityKey))
    }

    /// Every key a row may hold for `value` at `issuer`: one per encryption
    /// key given (rows written before a rotation hold the previous key's), and
    /// the unkeyed SHA-256 that schema version 2 wrote, until each such row is
    /// written again.
    static func candidates(_ issuer: String, _ kind: String, _ value: String, keys: CredentialEncryptionKeys) -> [Data] {
        ([keys.current] + keys.previous).map { key(issuer, kind, value, with: $0) }
            + [Data(SHA256.hash(data: message(issuer, kind, value)))]
    }

    private static func message(_ issuer: String, _ kind: String, _ value: String) -> Data {
        Data("\(issuer)\u{0}\(kind)\u{0}\(value)".utf8)
    }
}

extension CredentialEncryptionKey {
    /// The HMAC key of the identity keys: HKDF-SHA256 of the encryption key,
    /// so the same secret never serves two algorithms.
    var identityKey: SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, info: Data("authflow-session-identity-v1".utf8), outputByteCount: 32)
    }
}
#endif
