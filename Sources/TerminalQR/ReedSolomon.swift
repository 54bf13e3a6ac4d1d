/// Reed–Solomon error correction over GF(2⁸) with the QR polynomial
/// x⁸ + x⁴ + x³ + x² + 1 (0x11D), generator roots α⁰ … αⁿ⁻¹.
struct ReedSolomon {
    /// The generator polynomial's coefficients, highest degree first, the
    /// leading 1 left out.
    let generator: [UInt8]

    /// A generator for `degree` error-correction codewords.
    init(degree: Int) {
        precondition((1...255).contains(degree))
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            // Multiply by (x − root).
            for index in 0..<degree {
                coefficients[index] = Self.multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = Self.multiply(root, 0x02)
        }
        generator = coefficients
    }

    /// The error-correction codewords of `data`: the remainder of
    /// data·xⁿ divided by the generator.
    func remainder(of data: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices {
                result[index] ^= Self.multiply(generator[index], factor)
            }
        }
        return result
    }

    /// Multiplication in GF(2⁸) modulo 0x11D (Russian peasant).
    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var product: UInt16 = 0
        var a = UInt16(a)
        var b = b
        while b != 0 {
            if b & 1 != 0 { product ^= a }
            a <<= 1
            if a & 0x100 != 0 { a ^= 0x11D }
            b >>= 1
        }
        return UInt8(product)
    }
}
