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
    static func verify(_ jws: some SignedJWS, algorithm: String, key: JSONWebKey) throws -> Bool {
        try jws.withSigningInput { input in
            switch (key.material, algorithm) {
            case (.weakRSA(let bits), _):
                throw AuthFlowError.idToken(.algorithm, "RSA keys under 2048 bits are refused (this one has \(bits))")
            case (.rsa(let publicKey, _), _):
                let signature = _RSA.Signing.RSASignature(rawRepresentation: jws.signatureBytes)
                switch algorithm {
                case "RS256": return publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
                case "RS384": return publicKey.isValidSignature(signature, for: SHA384.hash(data: input), padding: .insecurePKCS1v1_5)
                case "RS512": return publicKey.isValidSignature(signature, for: SHA512.hash(data: input), padding: .insecurePKCS1v1_5)
                case "PS256": return publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .PSS)
                case "PS384": return publicKey.isValidSignature(signature, for: SHA384.hash(data: input), padding: .PSS)
                case "PS512": return publicKey.isValidSignature(signature, for: SHA512.hash(data: input), padding: .PSS)
                default: return false
                }
            case (.p256(let publicKey), "ES256"):
                guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signatureBytes) else { return false }
                return publicKey.isValidSignature(signature, for: SHA256.hash(data: input))
            case (.p384(let publicKey), "ES384"):
                guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: jws.signatureBytes) else { return false }
                return publicKey.isValidSignature(signature, for: SHA384.hash(data: input))
            case (.ed25519(let publicKey), "EdDSA"):
                return publicKey.isValidSignature(jws.signatureBytes, for: input)
            default:
                return false
            }
        }
    }

    /// Checks an HMAC signature with the client secret as the key.
    static func verifyHMAC(_ jws: some SignedJWS, algorithm: String, secret: String) -> Bool {
        let key = SymmetricKey(data: Array(secret.utf8))
        let signature = jws.signatureBytes
        return jws.withSigningInput { input in
            switch algorithm {
            case "HS256": HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            case "HS384": HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            case "HS512": HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            default: false
            }
        }
    }
}
