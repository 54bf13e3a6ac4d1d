import Crypto
import _CryptoExtras

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The private key a client signs its `private_key_jwt` assertions with
/// (RFC 7523 §2.2, OpenID Connect Core §9): RSA (RS256 or PS256, at least
/// 2048 bits), P-256 (ES256) or Ed25519 (EdDSA), read from PEM or from a
/// private JWK. The provider knows the matching public key from the client's
/// registration.
///
/// The key material is never shown: ``description`` names only the algorithm
/// and the key id.
public struct ClientAssertionKey: Sendable, Equatable, CustomStringConvertible {
    enum Material: Sendable {
        case rsa(_RSA.Signing.PrivateKey)
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
    }

    /// The JWS algorithm of the assertions: `RS256`, `PS256`, `ES256` or `EdDSA`.
    public let algorithm: String
    /// The `kid` put in each assertion's header, when the provider needs it
    /// to pick the registered key.
    public let keyID: String?
    let material: Material
    /// The public key's bytes, for equality.
    private let publicKeyBytes: [UInt8]

    /// Reads a PEM private key: PKCS #8 (any of the three types), PKCS #1
    /// (RSA) or SEC 1 (P-256).
    ///
    /// - Parameters:
    ///   - pem: the private key as PEM text.
    ///   - algorithm: for an RSA key, `RS256` (the default) or `PS256`;
    ///     ignored otherwise unless it contradicts the key type.
    ///   - keyID: the `kid` for the assertion header.
    /// - Throws: ``AuthFlowError/Category/configuration`` when the text is not
    ///   a supported private key or the algorithm does not fit it.
    public init(pem: String, algorithm: String? = nil, keyID: String? = nil) throws {
        let material: Material
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            material = .p256(key)
        } else if let key = try? Curve25519.Signing.PrivateKey(pemRepresentation: pem) {
            material = .ed25519(key)
        } else if let key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            material = .rsa(key)
        } else {
            throw AuthFlowError(
                .configuration, "the private key is not a PEM RSA, P-256 or Ed25519 private key",
                recovery: "Give a PKCS #8, PKCS #1 or SEC 1 PEM private key (or a private JWK: ClientAssertionKey(jwk:)).",
                remedy: .giveASupportedPrivateKey)
        }
        try self.init(material: material, algorithm: algorithm, keyID: keyID)
    }

    /// Reads a private JWK (RFC 7517, RFC 7518 §6, RFC 8037): `kty` `RSA`
    /// with `n`, `e`, `d`, `p`, `q`; `EC` on `P-256` with `x`, `y`, `d`; or
    /// `OKP` on `Ed25519` with `x` and `d`. Its `alg` and `kid` are used
    /// unless `algorithm` / `keyID` are given.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when the JSON is not
    ///   such a key, the public and private parts disagree, or the algorithm
    ///   does not fit it.
    public init(jwk data: Data, algorithm: String? = nil, keyID: String? = nil) throws {
        func refuse(_ why: String) -> AuthFlowError {
            AuthFlowError(
                .configuration, "the private JWK is unusable: \(why)",
                recovery: "give an RSA, P-256 or Ed25519 private JWK (with its \"d\" member)")
        }
        guard let object = JSONMemberValue.object(from: data) else { throw refuse("it is not a JSON object") }
        func bytes(_ name: String) throws -> [UInt8] {
            guard let text = object[name]?.stringValue, let value = Base64URL.decode(text), !value.isEmpty else {
                throw refuse("\"\(name)\" is missing or not base64url")
            }
            return value
        }
        let material: Material
        switch object["kty"]?.stringValue {
        case "RSA":
            do {
                material = .rsa(
                    try _RSA.Signing.PrivateKey(
                        n: try bytes("n"), e: try bytes("e"), d: try bytes("d"),
                        p: try bytes("p"), q: try bytes("q")))
            } catch let error as AuthFlowError { throw error } catch { throw refuse("the RSA parameters do not form a key") }
        case "EC":
            guard object["crv"]?.stringValue == "P-256" else { throw refuse("only the P-256 curve is supported for EC keys") }
            let x = try bytes("x")
            let y = try bytes("y")
            let d = try bytes("d")
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: d) else { throw refuse("\"d\" is not a P-256 scalar") }
            guard Array(key.publicKey.x963Representation) == [4] + x + y else { throw refuse("\"x\"/\"y\" do not match \"d\"") }
            material = .p256(key)
        case "OKP":
            guard object["crv"]?.stringValue == "Ed25519" else { throw refuse("only the Ed25519 curve is supported for OKP keys") }
            let d = try bytes("d")
            guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: d) else { throw refuse("\"d\" is not an Ed25519 key") }
            if object["x"] != nil, Array(key.publicKey.rawRepresentation) != (try bytes("x")) { throw refuse("\"x\" does not match \"d\"") }
            material = .ed25519(key)
        default:
            throw refuse("kty must be RSA, EC or OKP")
        }
        try self.init(material: material, algorithm: algorithm ?? object["alg"]?.stringValue, keyID: keyID ?? object["kid"]?.stringValue)
    }

    /// Reads `data` as a private JWK when it is a JSON object, as PEM otherwise.
    public init(contents data: Data, algorithm: String? = nil, keyID: String? = nil) throws {
        if data.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "{") {
            try self.init(jwk: data, algorithm: algorithm, keyID: keyID)
        } else {
            guard let text = String(data: data, encoding: .utf8) else {
                throw AuthFlowError(.configuration, "the private key file is neither UTF-8 PEM nor a JWK")
            }
            try self.init(pem: text, algorithm: algorithm, keyID: keyID)
        }
    }

    /// A new random key for `algorithm` (`ES256`, `EdDSA`, or `RS256` /
    /// `PS256` with 2048 bits): register its ``publicJWK`` with the provider.
    public static func generate(algorithm: String = "ES256", keyID: String? = nil) throws -> ClientAssertionKey {
        let material: Material =
            switch algorithm {
            case "ES256": .p256(P256.Signing.PrivateKey())
            case "EdDSA": .ed25519(Curve25519.Signing.PrivateKey())
            case "RS256", "PS256": .rsa(try _RSA.Signing.PrivateKey(keySize: .bits2048))
            default: throw misfit(algorithm, "a key AuthFlow can generate (ES256, EdDSA, RS256, PS256)")
            }
        return try ClientAssertionKey(material: material, algorithm: algorithm, keyID: keyID)
    }

    /// The private key in PKCS #8 PEM (PKCS #1 for RSA), for the tests that
    /// read a key back from PEM. Secret: never log it.
    package var privatePEM: String {
        switch material {
        case .rsa(let key): key.pemRepresentation
        case .p256(let key): key.pemRepresentation
        case .ed25519(let key): key.pemRepresentation
        }
    }

    private init(material: Material, algorithm: String?, keyID: String?) throws {
        let chosen: String
        switch material {
        case .rsa(let key):
            guard key.keySizeInBits >= 2048 else {
                throw AuthFlowError(.configuration, "RSA keys under 2048 bits are refused (this one has \(key.keySizeInBits))")
            }
            chosen = algorithm ?? "RS256"
            guard chosen == "RS256" || chosen == "PS256" else { throw ClientAssertionKey.misfit(chosen, "an RSA key (RS256 or PS256)") }
            publicKeyBytes = Array(key.publicKey.derRepresentation)
        case .p256(let key):
            chosen = algorithm ?? "ES256"
            guard chosen == "ES256" else { throw ClientAssertionKey.misfit(chosen, "a P-256 key (ES256)") }
            publicKeyBytes = Array(key.publicKey.x963Representation)
        case .ed25519(let key):
            chosen = algorithm ?? "EdDSA"
            guard chosen == "EdDSA" else { throw ClientAssertionKey.misfit(chosen, "an Ed25519 key (EdDSA)") }
            publicKeyBytes = Array(key.publicKey.rawRepresentation)
        }
        self.material = material
        self.algorithm = chosen
        self.keyID = keyID
    }

    private static func misfit(_ algorithm: String, _ expected: String) -> AuthFlowError {
        AuthFlowError(
            .configuration, "the algorithm \(algorithm) does not fit \(expected)",
            recovery: "set the key's \"alg\" to one that fits its type, or leave it out")
    }

    /// The JWS signature of `input`.
    package func sign(_ input: [UInt8]) throws -> [UInt8] {
        switch material {
        case .rsa(let key):
            let padding: _RSA.Signing.Padding = algorithm == "PS256" ? .PSS : .insecurePKCS1v1_5
            return Array(try key.signature(for: SHA256.hash(data: input), padding: padding).rawRepresentation)
        case .p256(let key):
            return Array(try key.signature(for: input).rawRepresentation)
        case .ed25519(let key):
            return Array(try key.signature(for: input))
        }
    }

    /// The public key as a JWK, with `alg` and `kid` (what the client registers).
    public var publicJWK: [String: JSONMemberValue] {
        var jwk: [String: JSONMemberValue]
        switch material {
        case .rsa(let key):
            let primitives = try? key.publicKey.getKeyPrimitives()
            jwk = PublicJWK.rsa(modulus: Array(primitives?.modulus ?? Data()), exponent: Array(primitives?.publicExponent ?? Data()))
        case .p256(let key): jwk = PublicJWK.p256(x963: Array(key.publicKey.x963Representation))
        case .ed25519(let key): jwk = PublicJWK.ed25519(Array(key.publicKey.rawRepresentation))
        }
        jwk["alg"] = .string(algorithm)
        jwk["use"] = .string("sig")
        if let keyID { jwk["kid"] = .string(keyID) }
        return jwk
    }

    /// The algorithm and key id; never the key.
    public var description: String { "\(algorithm) key\(keyID.map { " \($0)" } ?? "")" }

    /// Keys are equal when their algorithm, key ID and public key are.
    public static func == (lhs: ClientAssertionKey, rhs: ClientAssertionKey) -> Bool {
        lhs.algorithm == rhs.algorithm && lhs.keyID == rhs.keyID && lhs.publicKeyBytes == rhs.publicKeyBytes
    }
}
