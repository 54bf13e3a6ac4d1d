#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// Unguessable identifiers for codes and tokens.
enum RandomToken {
    /// `bytes` random bytes from the system CSPRNG, base64url.
    static func make(bytes: Int = 32) -> String {
        Base64URL.encode(randomBytes(bytes))
    }

    /// `count` bytes from the system CSPRNG, eight per call to it (one
    /// `getrandom` each on Linux) rather than one call per byte.
    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            var word: UInt64 = generator.next()
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        bytes.removeLast(bytes.count - count)
        return bytes
    }

    /// A user code for the device flow: 8 letters without vowels, as `BCDF-GHJK` (RFC 8628 §6.1).
    static func userCode() -> String {
        let alphabet = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let letters = (0..<8).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
        return String(letters[0..<4]) + "-" + String(letters[4..<8])
    }
}
#endif
