import Foundation

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

/// Compares two strings in time that depends only on their lengths.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    var lhs = lhs
    var rhs = rhs
    return lhs.withUTF8 { a in rhs.withUTF8 { b in constantTimeEquals(a, b) } }
}

/// Byte-wise comparison whose time depends only on the lengths.
func constantTimeEquals(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
    for index in 0..<max(a.count, b.count) {
        let x = index < a.count ? a[index] : 0
        let y = index < b.count ? b[index] : 0
        difference |= x ^ y
    }
    return difference == 0 && a.count == b.count
}
