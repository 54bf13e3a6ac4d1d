import Testing

@testable import AuthFlowSecretService

/// The Secret Service's encrypted session: the Diffie–Hellman arithmetic and
/// the AES-CBC sealing of secrets.
@Suite("Secret Service transport")
struct SecretTransportTests {
    @Test("modular exponentiation: small powers, (p−1)² = 1, and both sides of an exchange agree")
    func arithmetic() {
        let group = ModularExponent.oakley2
        #expect(group.power([2], [10]).suffix(4) == [0, 0, 4, 0])
        #expect(group.power([2], [10]).count == 128)
        var pMinusOne = ModularExponent.bigEndian(group.modulus)
        pMinusOne[127] -= 1
        #expect(group.power(pMinusOne, [2]) == [UInt8](repeating: 0, count: 127) + [1])
        let (a, publicA) = SecretTransport.dhKeyPair()
        let (b, publicB) = SecretTransport.dhKeyPair()
        #expect(group.power(publicB, a) == group.power(publicA, b))
    }

    /// Computed by Python's `pow(base, exponent, p)` (arbitrary-precision
    /// integers) with p the Second Oakley Group's prime; the inputs are
    /// SHA-512 output, so every limb and carry path is exercised.
    static let referencePowers: [(base: String, exponent: String, power: String)] = [
        (
            "ef",
            "d9f823fdab8ece3c4a662ed3c931df49e95ae3c981357895a51915eb186eae23f04e51d070cc072e7b24ea724cb067fd17ac8e3bd1fb70db2a809dc5a781a150"
                + "fa119243e6aacba18ecd6773c2bdc7871c6e7248fa033252b4ce7294ee4c0211a5ca99bb5bfc8bfaeef5ce337feb05352812cc9f9e3b0a242029ddbacce0caba",
            "e2b0eb1b1e7f939a64c619043e28e759f32a28517daed213ce5e3a87741be8a6822ce4d3da95d5b666fb6d42429933e08e65bf42db338f5bab4368597e593578"
                + "d41d1b4f88f4623f8de7d42b30c64f72ac4598cf1f1f01b3aaff283ab37d16a0ad7103695b548b5f27b9e29bac73d40b250268143ddc57dc829a45f0d76dd610"
        ),
        (
            "8c0bf32b256bab7563d675660d1581d0a31ef716df814a585f489bd1ed0e0f7ffbeca8c55d905fa6cebc4976d02250c32b7c6fbf5c3eb90a758169dc19cbfa82"
                + "f86e34686610772be5ab464fbbfdf7976ee73a132ecec300dcbbe6f172f7b6d1561b63af569e355d9d84b553b86d345f6f3825e3ed583261d96bd72a081b80c2",
            "0696097d9393e859d0604fba86bd3ce2f8ab9897e93ff43795e82f61b3525a72b1bca831f0dc3428ef4e29913e2ef0872c0099e4bcc720c9466ec424501384b9"
                + "df819802b7fdb293555ac90d34c170d17f77e57f1c5a190565bbf1c8fae20deb5dfee431ec09855f9b48a471427ca4404a0fd372135df7091e84e793c082e47e",
            "286e883f50d3fbfe9009502abd551e6654e5bfeac474f16dd8ae2cf58766f4f4f34dd130d4b592954329ee14ddf58e523a93861c860bb4d1e97fb763d17d43b1"
                + "4fb7a558dfbd478ad90ffad4da209ccee2424f1aad7f8611fadaa28e2305f6d70a8c12797d0b04aab73b211ae8af0b51cfec4282a7ae12331c823a6ff71f8863"
        ),
        (
            "cc09944a63984941008e27d651c9a817a9e39e5ba0d1b10f0d169920db6a4c5bf3999100779c711eb430a0f5e7a32a3fd79313eb59cc99f92625c1a56ba933fe"
                + "fb5bbee43b311b2a4e8ba4a71d026695dc3748acee3e7cfb8525c64371e6a2ea75c7395c9062ac61d06b1ead8ee6125c70596a0b1d311b0cb6d11b5c7698c68a",
            "a11117a90941ef1483fcfa438f237e5efd1b0c3da737528a9d0e7707bfba84b3",
            "9add636cd1d4b777e49e318664787b35f6abfb59cb2e486cae3841bd8567d846ab951a2130948060bdad2b17756d647567c6ec4f2e947970b74a16c0594af64f"
                + "398b9663220f8d0f040a16fa0159d42a2b734d3f63d435735dc03cad65ec392fba58b8ceddf101c109a883b160fe084bf3ab89b6d4a4971431d423da8ca2be57"
        ),
        (
            "02",
            "04c97a799e3e845d72041d16453ac146ce0187b37d690b77e386ba5c4b43856b1546ce84ea914ce17b392a9015dc372b4dc2f5b4bec89f1e19e4550b31e12fca"
                + "7bc7e526ef2b5ca576e2ceada6e10c388eb778fb8f947e04fed4193d0e285132889180e9fe7e8997c0fa95e3f7168d2e1a82182c33806452ea7d6f794efe2e61",
            "91f7326be3015eb21ce04de0932cc8c9a9c141df0535b84ab4b313baf9d22c32532943e9b3ea7a6f96a01c7aa43bac7bde92f96ef303df5e9c94febc75ad3cb2"
                + "da811fd111b56915fefd16c6758a4123ce1e4485973ba4e978708f7f827dd9411c5ed10877f1f50df04189ac464f9d8e4cd8de106723d0b9a5cff477ba8a5bde"
        ),
        (
            String(repeating: "ff", count: 128),
            "4929e94c9244885d63d0bbe912930475",
            "e17143ac962a684d7fdb6192af85e3eba92467ef8afbd577f293eb4c896b233efe7cdd8022fe58d789756a943309b8341f6374c1e54d8bac38a5792b69d42b9c"
                + "4021ea7fda0b00109d9a7f4dae44ca627a38ad2264decc5f9cc4aa8e4e43199d6a4e7ad9a79370208c9a6f41dfd36c2476a15899e4169ed21593e2a07b218807"
        ),
    ]

    @Test("modular exponentiation agrees with an arbitrary-precision reference (Python's pow), a base above p included")
    func reference() {
        func bytes(_ hex: String) -> [UInt8] {
            stride(from: 0, to: hex.count, by: 2).map { offset in
                let start = hex.index(hex.startIndex, offsetBy: offset)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }
        for vector in Self.referencePowers {
            #expect(ModularExponent.oakley2.power(bytes(vector.base), bytes(vector.exponent)) == bytes(vector.power))
        }
    }

    @Test("a peer's public value must be in 2 … p−2")
    func publicValues() {
        let group = ModularExponent.oakley2
        var pMinusOne = ModularExponent.bigEndian(group.modulus)
        pMinusOne[127] -= 1
        for bad in [[], [0], [1], pMinusOne, ModularExponent.bigEndian(group.modulus), [UInt8](repeating: 0xFF, count: 129)] {
            #expect(!group.isValidPublicValue(bad))
            #expect(SecretTransport.aes(privateExponent: [1, 2, 3], servicePublicValue: bad) == nil)
        }
        #expect(group.isValidPublicValue([2]))
    }

    @Test("a secret sealed by one side opens on the other; a wrong IV or key does not yield it")
    func sealing() throws {
        let (a, publicA) = SecretTransport.dhKeyPair()
        let (b, publicB) = SecretTransport.dhKeyPair()
        let mine = try #require(SecretTransport.aes(privateExponent: a, servicePublicValue: publicB))
        let theirs = try #require(SecretTransport.aes(privateExponent: b, servicePublicValue: publicA))
        let secret = Array("{\"credentials\": \"…\"}".utf8)
        let sealed = try mine.seal(secret)
        #expect(sealed.parameters.count == 16 && sealed.value != secret && sealed.value.count % 16 == 0)
        #expect(theirs.open(parameters: sealed.parameters, value: sealed.value) == secret)
        #expect(theirs.open(parameters: [1, 2, 3], value: sealed.value) == nil)
        let (c, _) = SecretTransport.dhKeyPair()
        let stranger = try #require(SecretTransport.aes(privateExponent: c, servicePublicValue: publicB))
        #expect(stranger.open(parameters: sealed.parameters, value: sealed.value) != secret)
        #expect(try SecretTransport.plain.seal(secret) == ([], secret))
    }
}
