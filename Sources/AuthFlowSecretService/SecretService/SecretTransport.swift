import Crypto
import _CryptoExtras

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How secrets travel in a Secret Service session: `plain`, or
/// `dh-ietf1024-sha256-aes128-cbc-pkcs7` (the Secret Service API's
/// "Transfer of Secrets"): a Diffie–Hellman exchange in the 1024-bit MODP
/// group of RFC 2409, HKDF-SHA256 of the shared value (no salt, no info) to
/// an AES-128 key, and each secret AES-128-CBC with PKCS #7 padding under a
/// fresh 16-byte IV sent as the secret's parameters.
enum SecretTransport {
    case plain
    case aes(SymmetricKey)

    static let dhAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// A private exponent and the public value to send. 256 random bits:
    /// twice the strength of the 1024-bit group (about 80 bits), and a
    /// quarter of the work of a full-length exponent.
    static func dhKeyPair() -> (privateExponent: [UInt8], publicValue: [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        let exponent = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return (exponent, ModularExponent.oakley2.power([2], exponent))
    }

    /// The session's key from the service's public value; nil when the value is not a valid group element.
    static func aes(privateExponent: [UInt8], servicePublicValue: [UInt8]) -> SecretTransport? {
        let group = ModularExponent.oakley2
        guard group.isValidPublicValue(servicePublicValue) else { return nil }
        let shared = group.power(servicePublicValue, privateExponent)
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: shared), info: [UInt8](), outputByteCount: 16)
        return .aes(key)
    }

    /// The parameters and value a secret is sent as.
    func seal(_ secret: [UInt8]) throws -> (parameters: [UInt8], value: [UInt8]) {
        switch self {
        case .plain: return ([], secret)
        case .aes(let key):
            let iv = AES._CBC.IV()
            return (Array(iv), Array(try AES._CBC.encrypt(secret, using: key, iv: iv)))
        }
    }

    /// The secret from the parameters and value it came as; nil when they do not decrypt.
    func open(parameters: [UInt8], value: [UInt8]) -> [UInt8]? {
        switch self {
        case .plain: return value
        case .aes(let key):
            guard let iv = try? AES._CBC.IV(ivBytes: parameters), let secret = try? AES._CBC.decrypt(value, using: key, iv: iv) else {
                return nil
            }
            return Array(secret)
        }
    }
}
