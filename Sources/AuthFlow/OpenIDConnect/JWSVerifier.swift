import Crypto
import _CryptoExtras
import Foundation

/// Verifies compact JWS signatures with swift-crypto.
enum JWSVerifier {
    /// Algorithms AuthFlow can verify with public keys.
    static let asymmetric: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]
    /// HMAC algorithms, usable only by a client that has a secret.
    static let symmetric: Set<String> = ["HS256", "HS384", "HS512"]
    /// Every algorithm AuthFlow can verify.
    static let supported = asymmetric.union(symmetric)

    /// Checks the signature of `jws` with `key`. RSA keys under 2048 bits are refused.
    static func verify(_ jws: CompactJWS, algorithm: String, key: JSONWebKey) throws -> Bool {
        let input = jws.signingInput
        switch (key.material, algorithm) {
        case (.weakRSA(let bits), _):
            throw AuthFlowError.idToken(.algorithm, "RSA keys under 2048 bits are refused (this one has \(bits))")
        case (.rsa(let publicKey, _), "RS256"), (.rsa(let publicKey, _), "RS384"), (.rsa(let publicKey, _), "RS512"),
             (.rsa(let publicKey, _), "PS256"), (.rsa(let publicKey, _), "PS384"), (.rsa(let publicKey, _), "PS512"):
            let signature = _RSA.Signing.RSASignature(rawRepresentation: jws.signature)
            let padding: _RSA.Signing.Padding = algorithm.hasPrefix("PS") ? .PSS : .insecurePKCS1v1_5
            switch algorithm.suffix(3) {
            case "256": return publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: padding)
            case "384": return publicKey.isValidSignature(signature, for: SHA384.hash(data: input), padding: padding)
            default: return publicKey.isValidSignature(signature, for: SHA512.hash(data: input), padding: padding)
            }
        case (.p256(let publicKey), "ES256"):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return publicKey.isValidSignature(signature, for: SHA256.hash(data: input))
        case (.p384(let publicKey), "ES384"):
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return publicKey.isValidSignature(signature, for: SHA384.hash(data: input))
        case (.ed25519(let publicKey), "EdDSA"):
            return publicKey.isValidSignature(jws.signature, for: input)
        default:
            return false
        }
    }

    /// Checks an HMAC signature with the client secret as the key.
    static func verifyHMAC(_ jws: CompactJWS, algorithm: String, secret: String) -> Bool {
        let key = SymmetricKey(data: Array(secret.utf8))
        let input = jws.signingInput
        switch algorithm {
        case "HS256": return HMAC<SHA256>.isValidAuthenticationCode(jws.signature, authenticating: input, using: key)
        case "HS384": return HMAC<SHA384>.isValidAuthenticationCode(jws.signature, authenticating: input, using: key)
        case "HS512": return HMAC<SHA512>.isValidAuthenticationCode(jws.signature, authenticating: input, using: key)
        default: return false
        }
    }
}
