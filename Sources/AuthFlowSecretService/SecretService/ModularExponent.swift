/// Modular exponentiation for the Secret Service's Diffie–Hellman session
/// (the 1024-bit MODP group of RFC 2409 §6.2), by Montgomery multiplication
/// over 32-bit limbs, least significant first. Constant-size loops: every
/// multiplication runs over all limbs.
struct ModularExponent {
    /// The modulus, odd, in limbs (least significant first).
    let modulus: [UInt32]
    /// −modulus⁻¹ mod 2³².
    private let inverse: UInt32
    /// R² mod modulus, R = 2^(32·limbs).
    private let rSquared: [UInt32]

    /// The Second Oakley Group's prime (RFC 2409 §6.2), generator 2.
    static let oakley2 = ModularExponent(
        bigEndianHex:
            "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
            + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
            + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF")

    init(bigEndianHex hex: String) {
        let bytes = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
        self.init(modulus: Self.limbs(bigEndian: bytes, count: bytes.count / 4))
    }

    init(modulus: [UInt32]) {
        self.modulus = modulus
        // Newton's iteration doubles the correct low bits each step: 1, 2, 4, … 32.
        var inverse: UInt32 = 1
        for _ in 0..<5 { inverse = inverse &* (2 &- modulus[0] &* inverse) }
        self.inverse = 0 &- inverse
        // R² mod m by doubling 1 modulo m, 2·32·limbs times.
        var value = [UInt32](repeating: 0, count: modulus.count)
        value[0] = 1
        for _ in 0..<(64 * modulus.count) { value = Self.doubled(value, modulo: modulus) }
        rSquared = value
    }

    /// The modulus's length in bytes.
    var byteCount: Int { modulus.count * 4 }

    /// base^exponent mod modulus, as big-endian bytes of ``byteCount`` length.
    func power(_ base: [UInt8], _ exponent: [UInt8]) -> [UInt8] {
        var one = [UInt32](repeating: 0, count: modulus.count)
        one[0] = 1
        let baseLimbs = reduced(Self.limbs(bigEndian: base, count: modulus.count))
        let montgomeryBase = multiply(baseLimbs, rSquared)
        var result = multiply(one, rSquared)
        for byte in exponent {
            for bit in (0..<8).reversed() {
                result = multiply(result, result)
                let product = multiply(result, montgomeryBase)
                // Both products are computed; the bit chooses one without a branch on the secret.
                let mask = 0 &- UInt32((byte >> UInt8(bit)) & 1)
                for index in result.indices { result[index] = (product[index] & mask) | (result[index] & ~mask) }
            }
        }
        return Self.bigEndian(multiply(result, one))
    }

    /// Whether `value` (big-endian) is in 2 … modulus − 2, as a peer's public value must be.
    func isValidPublicValue(_ value: [UInt8]) -> Bool {
        guard value.count <= byteCount else { return false }
        let limbs = Self.limbs(bigEndian: value, count: modulus.count)
        var two = [UInt32](repeating: 0, count: modulus.count)
        two[0] = 2
        var limit = modulus
        limit[0] &-= 1 // modulus − 1 (the modulus is odd, so no borrow)
        return Self.compare(limbs, two) >= 0 && Self.compare(limbs, limit) < 0
    }

    /// Montgomery multiplication: a·b·R⁻¹ mod modulus, for a, b below the modulus.
    private func multiply(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        let count = modulus.count
        var t = [UInt32](repeating: 0, count: count + 2)
        for i in 0..<count {
            var carry: UInt64 = 0
            for j in 0..<count {
                let sum = UInt64(t[j]) + UInt64(a[j]) * UInt64(b[i]) + carry
                t[j] = UInt32(truncatingIfNeeded: sum)
                carry = sum >> 32
            }
            var sum = UInt64(t[count]) + carry
            t[count] = UInt32(truncatingIfNeeded: sum)
            t[count + 1] = UInt32(truncatingIfNeeded: sum >> 32)
            let m = t[0] &* inverse
            sum = UInt64(t[0]) + UInt64(m) * UInt64(modulus[0])
            carry = sum >> 32
            for j in 1..<count {
                sum = UInt64(t[j]) + UInt64(m) * UInt64(modulus[j]) + carry
                t[j - 1] = UInt32(truncatingIfNeeded: sum)
                carry = sum >> 32
            }
            sum = UInt64(t[count]) + carry
            t[count - 1] = UInt32(truncatingIfNeeded: sum)
            t[count] = t[count + 1] &+ UInt32(truncatingIfNeeded: sum >> 32)
            t[count + 1] = 0
        }
        var result = Array(t[0..<count])
        if t[count] != 0 || Self.compare(result, modulus) >= 0 { result = Self.subtract(result, modulus) }
        return result
    }

    private func reduced(_ value: [UInt32]) -> [UInt32] {
        var value = value
        while Self.compare(value, modulus) >= 0 { value = Self.subtract(value, modulus) }
        return value
    }

    private static func doubled(_ value: [UInt32], modulo modulus: [UInt32]) -> [UInt32] {
        var result = value
        var carry: UInt32 = 0
        for index in result.indices {
            let next = result[index] >> 31
            result[index] = result[index] << 1 | carry
            carry = next
        }
        if carry != 0 || compare(result, modulus) >= 0 { result = subtract(result, modulus) }
        return result
    }

    /// a − b modulo 2^(32·limbs).
    private static func subtract(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var result = a
        var borrow: UInt64 = 0
        for index in result.indices {
            let difference = UInt64(a[index]) &- UInt64(b[index]) &- borrow
            result[index] = UInt32(truncatingIfNeeded: difference)
            borrow = (difference >> 63) & 1
        }
        return result
    }

    private static func compare(_ a: [UInt32], _ b: [UInt32]) -> Int {
        for index in a.indices.reversed() where a[index] != b[index] { return a[index] < b[index] ? -1 : 1 }
        return 0
    }

    static func limbs(bigEndian bytes: [UInt8], count: Int) -> [UInt32] {
        var limbs = [UInt32](repeating: 0, count: count)
        for (offset, byte) in bytes.reversed().enumerated() where offset < count * 4 {
            limbs[offset / 4] |= UInt32(byte) << (8 * UInt32(offset % 4))
        }
        return limbs
    }

    static func bigEndian(_ limbs: [UInt32]) -> [UInt8] {
        limbs.reversed().flatMap { limb in (0..<4).reversed().map { UInt8(truncatingIfNeeded: limb >> (8 * UInt32($0))) } }
    }
}
