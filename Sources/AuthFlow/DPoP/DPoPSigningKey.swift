import Crypto

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A P-256 key that signs DPoP proofs (RFC 9449, ES256) without giving out
/// its private key: the seam for keys kept in hardware, such as a Secure
/// Enclave key (`SecureEnclaveDPoPKey` in AuthFlowApple).
///
/// A conforming type gives its public key and signs; AuthFlow builds the
/// proofs (one builder for every key, ``proof(method:url:accessToken:nonce:now:)``),
/// the JWK and the thumbprint. ``DPoPKey`` is the software key.
public protocol DPoPSigningKey: Sendable {
    /// The uncompressed public point (ANSI X9.63: `0x04`, then x and y,
    /// 32 bytes each, big-endian), as CryptoKit's `x963Representation`.
    var publicKeyX963: [UInt8] { get }

    /// The ES256 signature of `signingInput` (ECDSA P-256 over its SHA-256):
    /// `r` then `s`, 32 bytes each, as CryptoKit's `rawRepresentation`.
    func signature(for signingInput: [UInt8]) throws -> [UInt8]

    /// The JWK SHA-256 thumbprint of the public key (RFC 7638), base64url:
    /// the `dpop_jkt` and `cnf.jkt` value. Derived from ``publicKeyX963``.
    var thumbprint: String { get }
}

extension DPoPSigningKey {
    /// The JWK SHA-256 thumbprint of ``publicKeyX963`` (RFC 7638), base64url.
    public var thumbprint: String { DPoPPublicKey(x963: publicKeyX963).thumbprint }

    /// The public key as a JWK (what a proof's header carries).
    public var publicJWK: [String: JSONMemberValue] { DPoPPublicKey(x963: publicKeyX963).jwk }

    /// A DPoP proof (RFC 9449 §4.2) for one request, signed with
    /// ``signature(for:)``: the same claims as ``DPoPKey/proof(method:url:accessToken:nonce:now:)``,
    /// which a ``DPoPKey`` builds (with its header encoded once).
    public func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date()) throws -> String {
        if let software = self as? DPoPKey {
            return try software.proof(method: method, url: url, accessToken: accessToken, nonce: nonce, now: now)
        }
        let publicKey = DPoPPublicKey(x963: publicKeyX963)
        guard publicKey.isWellFormed else {
            throw AuthFlowError(.configuration, "the DPoP key's public point is not 65 bytes, uncompressed (X9.63)")
        }
        return try DPoPProof.build(
            header: publicKey.encodedHeaderBytes, method: method, url: url,
            accessToken: accessToken, tokenHash: nil, nonce: nonce, now: now
        ) { output in
            let signature = try self.signature(for: output)
            guard signature.count == 64 else {
                throw AuthFlowError(.configuration, "the DPoP key's signature is not 64 bytes (raw r and s)")
            }
            output.append(UInt8(ascii: "."))
            Base64URL.append(signature, to: &output)
        }
    }
}

/// The public half of a DPoP key in the forms proofs need, all written by ``PublicJWK``.
struct DPoPPublicKey {
    /// The public key as a JWK.
    let jwk: [String: JSONMemberValue]
    /// The JWK SHA-256 thumbprint (RFC 7638).
    let thumbprint: String
    /// The canonical JWK (RFC 7638 §3.2), as the proof header carries it.
    private let canonicalJWK: String
    /// Whether the point was 65 bytes, uncompressed; a proof refuses another.
    let isWellFormed: Bool

    init(x963: [UInt8]) {
        isWellFormed = x963.count == 65 && x963[0] == 4
        jwk = PublicJWK.p256(x963: x963)
        // x and y are base64url (possibly empty): the canonical form always exists.
        canonicalJWK = PublicJWK.canonicalJSON(of: jwk) ?? "{}"
        thumbprint = PublicJWK.thumbprint(ofCanonical: canonicalJWK)
    }

    /// The base64url JOSE header of every proof (`typ`, `alg`, `jwk`), as bytes.
    var encodedHeaderBytes: [UInt8] {
        let header = #"{"alg":"ES256","jwk":\#(canonicalJWK),"typ":"dpop+jwt"}"#
        var bytes: [UInt8] = []
        Base64URL.append(Array(header.utf8), to: &bytes)
        return bytes
    }
}
