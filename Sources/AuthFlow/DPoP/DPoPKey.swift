import Crypto

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The key a DPoP-bound session proves possession of (RFC 9449): a P-256
/// software key, ES256 proofs.
///
/// `Codable` as a private JWK, so that a session's stored record can keep it
/// and a DPoP-bound refresh token still works after a restart. The encoded
/// form is as secret as the refresh token beside it; ``description`` shows
/// only the thumbprint.
public struct DPoPKey: DPoPSigningKey, Equatable, Codable, CustomStringConvertible {
    let privateKey: P256.Signing.PrivateKey
    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), base64url:
    /// the `dpop_jkt` and `cnf.jkt` value.
    public let thumbprint: String
    /// The public key as a JWK (what a proof's header carries).
    public let publicJWK: [String: JSONMemberValue]
    /// The base64url JOSE header of every proof (`typ`, `alg`, `jwk`), as
    /// bytes: the same for each, so encoded once.
    let encodedHeaderBytes: [UInt8]
    /// The `ath` of the last access token proofs were made for (shared by
    /// copies of the key).
    let tokenHash = AccessTokenHash()

    /// A new random key.
    public init() {
        self.init(privateKey: P256.Signing.PrivateKey())
    }

    init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        let publicKey = DPoPPublicKey(x963: Array(privateKey.publicKey.x963Representation))
        thumbprint = publicKey.thumbprint
        encodedHeaderBytes = publicKey.encodedHeaderBytes
        publicJWK = publicKey.jwk
    }

    /// The uncompressed public point (`0x04`, x, y).
    public var publicKeyX963: [UInt8] { Array(privateKey.publicKey.x963Representation) }

    /// The ES256 signature of `signingInput`, raw `r` and `s`.
    public func signature(for signingInput: [UInt8]) throws -> [UInt8] {
        Array(try privateKey.signature(for: signingInput).rawRepresentation)
    }

    /// A DPoP proof (RFC 9449 §4.2) for one request: `htm`, `htu` (the URL
    /// without userinfo, query and fragment), `iat`, a unique `jti`, and `ath` (the
    /// SHA-256 of `accessToken`) for resource requests, `nonce` when the
    /// server gave one.
    ///
    /// Written straight as bytes into one buffer (claims, then the signing
    /// input, then the signature): the signature is the only real cost. The
    /// `ath` of the last access token is kept with the key, since a session
    /// sends many requests with the same token.
    public func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date()) throws -> String {
        try DPoPProof.build(
            header: encodedHeaderBytes, method: method, url: url, accessToken: accessToken, tokenHash: tokenHash,
            nonce: nonce, now: now
        ) { output in
            let signature = try privateKey.signature(for: output)
            output.append(UInt8(ascii: "."))
            // swift-crypto hands the signature out as Data; its bytes are encoded in place. Fuzzed: base64url.
            signature.rawRepresentation.withUnsafeBytes { Base64URL.append(buffer: $0.assumingMemoryBound(to: UInt8.self), to: &output) }
        }
    }

    // MARK: Codable, as a private JWK

    private enum CodingKeys: String, CodingKey { case kty, crv, x, y, d }

    /// Decodes a private P-256 JWK (`kty` `EC`, `crv` `P-256`, `d`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard try container.decode(String.self, forKey: .kty) == "EC", try container.decode(String.self, forKey: .crv) == "P-256",
            let d = Base64URL.decode(try container.decode(String.self, forKey: .d)),
            let key = try? P256.Signing.PrivateKey(rawRepresentation: d)
        else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a P-256 private JWK"))
        }
        self.init(privateKey: key)
    }

    /// Encodes the key as a private JWK: as secret as the tokens it binds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let jwk = publicJWK
        try container.encode("EC", forKey: .kty)
        try container.encode("P-256", forKey: .crv)
        try container.encode(jwk["x"]?.stringValue, forKey: .x)
        try container.encode(jwk["y"]?.stringValue, forKey: .y)
        try container.encode(Base64URL.encode(Array(privateKey.rawRepresentation)), forKey: .d)
    }

    /// The thumbprint only; never the private key.
    public var description: String { "DPoP key \(thumbprint)" }

    /// Keys are equal when their private keys are.
    public static func == (lhs: DPoPKey, rhs: DPoPKey) -> Bool {
        lhs.privateKey.rawRepresentation == rhs.privateKey.rawRepresentation
    }
}
