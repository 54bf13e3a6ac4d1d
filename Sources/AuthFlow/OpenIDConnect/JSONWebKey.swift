import Crypto
import _CryptoExtras

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A public key from a JWK Set (RFC 7517), reduced to what verification needs.
public struct JSONWebKey: Sendable {
    /// The key material, typed.
    enum Material: Sendable {
        case rsa(_RSA.Signing.PublicKey, bits: Int)
        /// An RSA key too short to use: kept so that a token signed with it
        /// is refused as `algorithm`, not reported as an unknown key.
        case weakRSA(bits: Int)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// `kid`, when present.
    public let keyID: String?
    /// `kty`: `RSA`, `EC` or `OKP`.
    public let keyType: String
    /// `alg`, when present: the key may then only be used with it.
    public let algorithm: String?
    let material: Material
    /// The algorithms this key may verify: those of its type and curve, and
    /// only its `alg` when it names one (none when that is not one AuthFlow knows).
    private let usableAlgorithms: JWSAlgorithmSet

    /// Parses one JWK. Returns nil for keys a client cannot use for
    /// signatures (other `kty`, `use` other than `sig`, unknown curves,
    /// broken material, any private member per ``PublicJWKRules``), so that
    /// one odd key never fails a whole set.
    init?(_ object: [String: JSONMemberValue]) {
        // A key with private members (or a symmetric one) is not a public key: skipped (PublicJWKRules).
        guard PublicJWKRules.violation(in: object) == nil, let kty = object["kty"]?.stringValue else { return nil }
        if let use = object["use"] { guard use.stringValue == "sig" else { return nil } }
        if let ops = object["key_ops"]?.arrayValue, !ops.contains(.string("verify")) { return nil }
        func bytes(_ name: String) -> [UInt8]? { object[name]?.stringValue.flatMap { Base64URL.decode($0) } }
        switch kty {
        case "RSA":
            guard var n = bytes("n"), let e = bytes("e"), !n.isEmpty, !e.isEmpty else { return nil }
            while n.first == 0 { n.removeFirst() }
            let bits = n.count * 8 - (n.first.map { $0.leadingZeroBitCount } ?? 0)
            if bits < 2048 {
                material = .weakRSA(bits: bits)
            } else {
                guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { return nil }
                material = .rsa(key, bits: bits)
            }
        case "EC":
            guard let x = bytes("x"), let y = bytes("y") else { return nil }
            switch object["crv"]?.stringValue {
            case "P-256":
                guard x.count == 32, y.count == 32, let key = try? P256.Signing.PublicKey(x963Representation: [4] + x + y) else {
                    return nil
                }
                material = .p256(key)
            case "P-384":
                guard x.count == 48, y.count == 48, let key = try? P384.Signing.PublicKey(x963Representation: [4] + x + y) else {
                    return nil
                }
                material = .p384(key)
            default:
                return nil
            }
        case "OKP":
            guard object["crv"]?.stringValue == "Ed25519", let x = bytes("x"), x.count == 32,
                let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x)
            else { return nil }
            material = .ed25519(key)
        default:
            return nil
        }
        keyType = kty
        keyID = object["kid"]?.stringValue
        algorithm = object["alg"]?.stringValue
        let fitting: JWSAlgorithmSet =
            switch material {
            case .rsa, .weakRSA: .rsa
            case .p256: JWSAlgorithmSet([.es256])
            case .p384: JWSAlgorithmSet([.es384])
            case .ed25519: JWSAlgorithmSet([.edDSA])
            }
        usableAlgorithms = algorithm.map { fitting.intersection(JWSAlgorithmSet(names: [$0])) } ?? fitting
    }

    /// Whether this key may verify a token naming `keyID` (nil: any key) signed with `algorithm`.
    func fits(keyID: String?, algorithm: JWSAlgorithm) -> Bool {
        fits(algorithm) && (keyID == nil || self.keyID == keyID)
    }

    /// Whether this key may verify a signature made with `algorithm`: the key's
    /// type and curve must be the algorithm's, and its `alg`, when present, the same.
    func fits(_ algorithm: JWSAlgorithm) -> Bool {
        usableAlgorithms.contains(algorithm)
    }
}

/// A JWK Set: the usable signature keys of a `jwks_uri` document.
public struct JSONWebKeySet: Sendable {
    /// Usable keys; unusable ones were skipped.
    public let keys: [JSONWebKey]

    /// Parses a JWK Set document; it must be an object with a `keys` array.
    public init(json data: Data) throws {
        guard let object = JSONMemberValue.object(from: data), let keys = object["keys"]?.arrayValue else {
            throw AuthFlowError.invalidResponse("the JWK Set is not an object with a keys array")
        }
        self.keys = keys.compactMap { $0.objectValue.flatMap(JSONWebKey.init) }
    }
}
