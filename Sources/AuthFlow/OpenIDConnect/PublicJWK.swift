import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one writer of public keys as JWKs (RFC 7517; RSA and EC members per
/// RFC 7518 §6, OKP per RFC 8037) and of their SHA-256 thumbprints
/// (RFC 7638): used by ``ClientAssertionKey``, ``DPoPSigningKey``, the DPoP
/// proof verifier and the embedded provider's signing keys.
package enum PublicJWK {
    /// An RSA public key from its modulus and public exponent (big-endian,
    /// leading zero bytes dropped as RFC 7518 §6.3.1 asks).
    package static func rsa(modulus: [UInt8], exponent: [UInt8]) -> [String: JSONMemberValue] {
        [
            "kty": .string("RSA"),
            "n": .string(Base64URL.encode(modulus.drop { $0 == 0 })),
            "e": .string(Base64URL.encode(exponent.drop { $0 == 0 })),
        ]
    }

    /// A P-256 public key from its uncompressed point (ANSI X9.63: `0x04`,
    /// then x and y, 32 bytes each). A point of another length gives the
    /// members it has; a signature made with it verifies nowhere.
    package static func p256(x963 point: [UInt8]) -> [String: JSONMemberValue] {
        [
            "kty": .string("EC"), "crv": .string("P-256"),
            "x": .string(Base64URL.encode(point.dropFirst().prefix(32))),
            "y": .string(Base64URL.encode(point.dropFirst(33).prefix(32))),
        ]
    }

    /// An Ed25519 public key from its 32 raw bytes.
    package static func ed25519(_ publicKey: [UInt8]) -> [String: JSONMemberValue] {
        ["kty": .string("OKP"), "crv": .string("Ed25519"), "x": .string(Base64URL.encode(publicKey))]
    }

    /// The JWK SHA-256 thumbprint (RFC 7638 §3), base64url, of an EC, RSA or
    /// OKP public key; nil for another `kty` or a required member that is not
    /// a base64url string.
    package static func thumbprint(of jwk: [String: JSONMemberValue]) -> String? {
        canonicalJSON(of: jwk).map(thumbprint(ofCanonical:))
    }

    /// The thumbprint of a key already in its ``canonicalJSON(of:)`` form.
    package static func thumbprint(ofCanonical json: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(json.utf8))))
    }

    /// The key's required members in lexicographic order, without whitespace
    /// (RFC 7638 §3.2): what the thumbprint hashes, and a JWK as compact as a
    /// JOSE header can carry it.
    package static func canonicalJSON(of jwk: [String: JSONMemberValue]) -> String? {
        let members: [String]
        switch jwk["kty"]?.stringValue {
        case "EC"?: members = ["crv", "kty", "x", "y"]
        case "RSA"?: members = ["e", "kty", "n"]
        case "OKP"?: members = ["crv", "kty", "x"]
        default: return nil
        }
        var canonical = "{"
        for (index, name) in members.enumerated() {
            guard let value = jwk[name]?.stringValue, value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return nil
            }
            canonical += (index == 0 ? "" : ",") + "\"\(name)\":\"\(value)\""
        }
        return canonical + "}"
    }
}
