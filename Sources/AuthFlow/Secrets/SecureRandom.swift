#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Cryptographically secure random values for state, nonce and PKCE verifiers
/// (and, in the loopback listener, one-time page paths and CSP nonces).
package enum SecureRandom {
    /// `count` bytes from the system CSPRNG.
    package static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// 32 random bytes, base64url encoded (43 characters).
    package static func token() -> String { Base64URL.encode(bytes(32)) }
}
