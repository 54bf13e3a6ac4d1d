import Foundation

/// Unguessable identifiers for codes and tokens.
enum RandomToken {
    /// `bytes` random bytes from the system CSPRNG, base64url.
    static func make(bytes: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URLText.encode((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// A user code for the device flow: 8 letters without vowels, as `BCDF-GHJK` (RFC 8628 §6.1).
    static func userCode() -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }
}
