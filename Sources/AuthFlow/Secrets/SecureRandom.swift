import Foundation

/// Cryptographically secure random values for state, nonce and PKCE verifiers.
enum SecureRandom {
    /// `count` bytes from the system CSPRNG.
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// 32 random bytes, base64url encoded (43 characters).
    static func token() -> String { Base64URL.encode(bytes(32)) }
}
