import Crypto
import _CryptoExtras

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The signature checks themselves, with swift-crypto: one key, one algorithm.
extension JWSSignatureVerifier {
    /// Checks the signature of `jws` with `key`. RSA keys under 2048 bits are refused.
    static func verify(_ jws: CompactJWS, algorithm: JWSAlgorithm, key: JSONWebKey) throws -> Bool {
        try jws.withSignedParts { input, signatureBytes in
            switch (key.material, algorithm) {
            case (.weakRSA(let bits), _):
                throw AuthFlowError.idToken(.algorithm, "RSA keys under 2048 bits are refused (this one has \(bits))")
            case (.rsa(let publicKey, _), _):
                let signature = _RSA.Signing.RSASignature(rawRepresentation: signatureBytes)
                switch algorithm {
                case .rs256: return publicKey.isValidSignature(signature, for: digest(SHA256.self, input), padding: .insecurePKCS1v1_5)
                case .rs384: return publicKey.isValidSignature(signature, for: digest(SHA384.self, input), padding: .insecurePKCS1v1_5)
                case .rs512: return publicKey.isValidSignature(signature, for: digest(SHA512.self, input), padding: .insecurePKCS1v1_5)
                case .ps256: return publicKey.isValidSignature(signature, for: digest(SHA256.self, input), padding: .PSS)
                case .ps384: return publicKey.isValidSignature(signature, for: digest(SHA384.self, input), padding: .PSS)
                case .ps512: return publicKey.isValidSignature(signature, for: digest(SHA512.self, input), padding: .PSS)
                default: return false
                }
            case (.p256(let publicKey), .es256):
                guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else { return false }
                return publicKey.isValidSignature(signature, for: digest(SHA256.self, input))
            case (.p384(let publicKey), .es384):
                guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signatureBytes) else { return false }
                return publicKey.isValidSignature(signature, for: digest(SHA384.self, input))
            case (.ed25519(let publicKey), .edDSA):
                return publicKey.isValidSignature(signatureBytes, for: input)
            default:
                return false
            }
        }
    }

    /// Checks an HMAC signature with the client secret as the key.
    static func verifyHMAC(_ jws: CompactJWS, algorithm: JWSAlgorithm, secret: String) -> Bool {
        let key = SymmetricKey(data: Array(secret.utf8))
        return jws.withSignedParts { input, signature in
            switch algorithm {
            case .hs256: HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            case .hs384: HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            case .hs512: HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: input, using: key)
            default: false
            }
        }
    }

    /// The digest of `input`, hashed straight from the buffer (the generic
    /// `hash(data:)` looks up the buffer's `Regions` type on every call).
    // Hashes the view itself: hash(data:) looks up the Regions type per call (fuzzed: Fuzz/token-reader.swift).
    private static func digest<H: HashFunction>(_: H.Type, _ input: UnsafeRawBufferPointer) -> H.Digest {
        var hasher = H()
        hasher.update(bufferPointer: input)
        return hasher.finalize()
    }
}
