import AuthFlowTestSupport
import Crypto
import Foundation
import Testing
import _CryptoExtras

@testable import AuthFlow

/// A private key a test signs ID tokens with.
enum SigningKey: Sendable {
    case rsa(_RSA.Signing.PrivateKey)
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)
    case hmac(String)

    /// Generated once per test process (RSA generation is slow in debug builds).
    static let rsa2048 = SigningKey.rsa(try! _RSA.Signing.PrivateKey(keySize: .bits2048))
    static let rsa2048b = SigningKey.rsa(try! _RSA.Signing.PrivateKey(keySize: .bits2048))
    static let rsa1024 = SigningKey.rsa(try! _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)))
    static let ec256 = SigningKey.p256(P256.Signing.PrivateKey())
    static let ec256b = SigningKey.p256(P256.Signing.PrivateKey())
    static let ec384 = SigningKey.p384(P384.Signing.PrivateKey())
    static let ed = SigningKey.ed25519(Curve25519.Signing.PrivateKey())

    func sign(_ input: [UInt8], alg: String) throws -> [UInt8] {
        switch self {
        case .rsa(let key):
            let padding: _RSA.Signing.Padding = alg.hasPrefix("PS") ? .PSS : .insecurePKCS1v1_5
            let signature: _RSA.Signing.RSASignature
            switch alg.suffix(3) {
            case "384": signature = try key.signature(for: SHA384.hash(data: input), padding: padding)
            case "512": signature = try key.signature(for: SHA512.hash(data: input), padding: padding)
            default: signature = try key.signature(for: SHA256.hash(data: input), padding: padding)
            }
            return Array(signature.rawRepresentation)
        case .p256(let key): return Array(try key.signature(for: SHA256.hash(data: input)).rawRepresentation)
        case .p384(let key): return Array(try key.signature(for: SHA384.hash(data: input)).rawRepresentation)
        case .ed25519(let key): return Array(try key.signature(for: input))
        case .hmac(let secret):
            let key = SymmetricKey(data: Array(secret.utf8))
            switch alg {
            case "HS384": return Array(HMAC<SHA384>.authenticationCode(for: input, using: key))
            case "HS512": return Array(HMAC<SHA512>.authenticationCode(for: input, using: key))
            default: return Array(HMAC<SHA256>.authenticationCode(for: input, using: key))
            }
        }
    }

    /// The public JWK (RFC 7517) of this key.
    func jwk(kid: String?, extra: [String: JSONMemberValue] = [:]) -> [String: JSONMemberValue] {
        var object: [String: JSONMemberValue]
        switch self {
        case .rsa(let key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            object = [
                "kty": .string("RSA"), "n": .string(Base64URL.encode(primitives.modulus)),
                "e": .string(Base64URL.encode(primitives.publicExponent)),
            ]
        case .p256(let key):
            let point = Array(key.publicKey.x963Representation.dropFirst())
            object = [
                "kty": .string("EC"), "crv": .string("P-256"), "x": .string(Base64URL.encode(point[0..<32])),
                "y": .string(Base64URL.encode(point[32...])),
            ]
        case .p384(let key):
            let point = Array(key.publicKey.x963Representation.dropFirst())
            object = [
                "kty": .string("EC"), "crv": .string("P-384"), "x": .string(Base64URL.encode(point[0..<48])),
                "y": .string(Base64URL.encode(point[48...])),
            ]
        case .ed25519(let key):
            object = ["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(Base64URL.encode(key.publicKey.rawRepresentation))]
        case .hmac(let secret):
            object = ["kty": .string("oct"), "k": .string(Base64URL.encode(Array(secret.utf8)))]
        }
        if let kid { object["kid"] = .string(kid) }
        return object.merging(extra) { $1 }
    }
}

func b64(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

/// A compact JWS over exactly these header and payload texts.
func jws(headerJSON: String, payloadJSON: String, key: SigningKey, alg: String) throws -> String {
    let input = b64(headerJSON) + "." + b64(payloadJSON)
    return input + "." + Base64URL.encode(try key.sign(Array(input.utf8), alg: alg))
}

/// A compact JWS with `alg` (and `kid`) in the header.
func jws(_ claims: [String: JSONMemberValue], key: SigningKey, alg: String, kid: String?, header extra: [String: JSONMemberValue] = [:])
    throws -> String
{
    var header: [String: JSONMemberValue] = ["alg": .string(alg), "typ": .string("JWT")]
    if let kid { header["kid"] = .string(kid) }
    return try jws(headerJSON: jsonText(header.merging(extra) { $1 }), payloadJSON: jsonText(claims), key: key, alg: alg)
}

func jwksJSON(_ keys: [[String: JSONMemberValue]]) -> String { jsonText(["keys": .array(keys.map(JSONMemberValue.object))]) }

/// An identity provider's keys served by a scripted transport.
final class TestIDP: Sendable {
    static let issuer = "https://idp.example"
    static let jwksURI = "https://idp.example/jwks"
    static let clientID = "app"
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    let jwks: Locked<String>
    let transport: ScriptedTransport
    let cache: KeySetCache

    init(keys: [[String: JSONMemberValue]], minimumRefetchInterval: TimeInterval = 30) throws {
        let jwks = Locked(jwksJSON(keys))
        self.jwks = jwks
        transport = ScriptedTransport { request in
            request.url.absoluteString == TestIDP.jwksURI ? .json(jwks.current) : HTTPTransportResponse(status: 404)
        }
        cache = try KeySetCache(jwksURI: url(Self.jwksURI), transport: transport, minimumRefetchInterval: minimumRefetchInterval)
    }

    func setKeys(_ keys: [[String: JSONMemberValue]]) { jwks.withLock { $0 = jwksJSON(keys) } }

    func verifier(secret: String? = nil, accepted: Set<String>? = nil, provider: [String]? = nil) -> IDTokenVerifier {
        IDTokenVerifier(keys: cache, clientSecret: secret, acceptedAlgorithms: accepted, providerAlgorithms: provider)
    }

    static func claims(_ changes: [String: JSONMemberValue?] = [:]) -> [String: JSONMemberValue] {
        var claims: [String: JSONMemberValue] = [
            "iss": .string(issuer), "sub": .string("user-1"), "aud": .string(clientID),
            "exp": .number(now.timeIntervalSince1970 + 300), "iat": .number(now.timeIntervalSince1970 - 10), "nonce": .string("N-1"),
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    static func rules(nonce: String? = "N-1", maxAge: Int? = nil, leeway: TimeInterval = 60) -> IDTokenRules {
        IDTokenRules(issuer: Issuer(stringLiteral: issuer), clientID: clientID, nonce: nonce, maxAge: maxAge, leeway: leeway)
    }
}
