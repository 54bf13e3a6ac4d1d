#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import Crypto
import _CryptoExtras
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A private signing key of the provider, with its key id.
public struct SigningKey: Sendable {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
    }

    /// `kid`, unique within the provider's JWK Set.
    public let keyID: String
    /// The algorithm this key signs with.
    public let algorithm: SigningAlgorithm
    let material: Material
    /// The base64url JOSE header of a JWT this key signs (`alg`, `kid`,
    /// `typ: JWT`): the same for every token, so encoded once.
    let encodedJWTHeader: String

    /// A new random key for `algorithm` (RSA keys are 2048 bits).
    public static func generate(_ algorithm: SigningAlgorithm, keyID: String? = nil) throws -> SigningKey {
        let kid = keyID ?? "\(algorithm.rawValue.lowercased())-\(RandomToken.make(bytes: 6))"
        switch algorithm {
        case .rs256: return try SigningKey(keyID: kid, algorithm: .rs256, material: .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048)))
        case .es256: return try SigningKey(keyID: kid, algorithm: .es256, material: .p256(P256.Signing.PrivateKey()))
        }
    }

    /// A key from a PEM private key (PKCS#1, PKCS#8 or SEC 1).
    public init(pem: String, algorithm: SigningAlgorithm, keyID: String) throws {
        let material: Material =
            switch algorithm {
            case .rs256: .rsa(try _RSA.Signing.PrivateKey(pemRepresentation: pem))
            case .es256: .p256(try P256.Signing.PrivateKey(pemRepresentation: pem))
            }
        try self.init(keyID: keyID, algorithm: algorithm, material: material)
    }

    private init(keyID: String, algorithm: SigningAlgorithm, material: Material) throws {
        self.keyID = keyID
        self.algorithm = algorithm
        self.material = material
        encodedJWTHeader = try JWSSigner.encodedHeader(keyID: keyID, algorithm: algorithm, type: "JWT")
    }

    /// The signature of `input` (the JWS signing input), in JWS form.
    package func sign(_ input: [UInt8]) throws -> [UInt8] {
        switch material {
        case .rsa(let key):
            return Array(try key.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
        case .p256(let key):
            return Array(try key.signature(for: input).rawRepresentation)
        }
    }

    /// Whether `signature` (JWS form) is this key's signature of `input`.
    func verify(_ signature: [UInt8], for input: [UInt8]) -> Bool {
        switch material {
        case .rsa(let key):
            let value = _RSA.Signing.RSASignature(rawRepresentation: signature)
            return key.publicKey.isValidSignature(value, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)
        case .p256(let key):
            guard let value = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.publicKey.isValidSignature(value, for: input)
        }
    }

    /// The public key as a JWK (RFC 7517), with `kid`, `alg` and `use: sig`.
    func publicJWK() throws -> [String: JSONMemberValue] {
        var jwk: [String: JSONMemberValue]
        switch material {
        case .rsa(let key):
            let primitives = try key.publicKey.getKeyPrimitives()
            jwk = PublicJWK.rsa(modulus: Array(primitives.modulus), exponent: Array(primitives.publicExponent))
        case .p256(let key): jwk = PublicJWK.p256(x963: Array(key.publicKey.x963Representation))
        }
        jwk["kid"] = .string(keyID)
        jwk["alg"] = .string(algorithm.rawValue)
        jwk["use"] = .string("sig")
        return jwk
    }
}
#endif
