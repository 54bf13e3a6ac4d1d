#if CLI
import Testing
@testable import authflow

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
#endif
