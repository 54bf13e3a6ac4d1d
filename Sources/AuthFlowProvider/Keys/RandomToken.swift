#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow

/// Unguessable identifiers for codes and tokens.
enum RandomToken {
    /// `bytes` random bytes from the system CSPRNG, base64url, never beginning with `-`.
    ///
    /// A client ID, a code or a token is often passed on a command line
    /// (`authflow login --client-id ID`), where a leading `-` reads as an
    /// option: one draw in 64 would begin with it. A draw that does is
    /// discarded and drawn again (rejection keeps the others uniform), so
    /// every identifier the provider generates is safe as an argument.
    static func make(bytes: Int = 32) -> String {
        while true {
            let token = Base64URL.encode(randomBytes(bytes))
            if !startsWithOptionDash(token) { return token }
        }
    }

    /// Whether `token` would be read as an option on a command line.
    static func startsWithOptionDash(_ token: String) -> Bool {
        token.utf8.first == UInt8(ascii: "-")
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
