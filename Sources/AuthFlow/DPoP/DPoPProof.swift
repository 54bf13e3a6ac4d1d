#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds DPoP proofs (RFC 9449 §4.2) for any ``DPoPSigningKey``.
enum DPoPProof {
    /// A proof: the claims written straight as bytes into one buffer, then
    /// the signing input after `header`, then `sign`, which signs the
    /// buffer's content and appends `.` and the base64url signature.
    static func build(
        header: [UInt8], method: String, url: URL, accessToken: String?, tokenHash: AccessTokenHash?,
        nonce: String?, now: Date, sign: (inout [UInt8]) throws -> Void
    ) throws -> String {
        let absolute = url.absoluteString
        let target = DPoPTarget.htu(of: absolute)
        var claims: [UInt8] = []
        // Room for the fixed members plus escaping headroom: one allocation in the usual case.
        claims.reserveCapacity(192 + method.utf8.count + target.utf8.count + (nonce?.utf8.count ?? 0))
        claims.append(contentsOf: #"{"htm":"#.utf8)
        ProofBytes.appendJSONString(method, to: &claims)
        claims.append(contentsOf: #","htu":"#.utf8)
        ProofBytes.appendJSONString(target, to: &claims)
        claims.append(contentsOf: #","iat":"#.utf8)
        ProofBytes.appendDecimal(Int64(now.timeIntervalSince1970.rounded(.down)), to: &claims)
        claims.append(contentsOf: #","jti":""#.utf8)
        // 128 bits from the system's CSPRNG (getrandom on Linux, arc4random on Apple platforms).
        var generator = SystemRandomNumberGenerator()
        var jti = (generator.next(), generator.next())
        // The 16 random bytes of the jti are read where they lie, not copied to an array. Fuzzed: base64url.
        withUnsafeBytes(of: &jti) { Base64URL.append(buffer: $0.assumingMemoryBound(to: UInt8.self), to: &claims) }
        jti = (0, 0)
        claims.append(UInt8(ascii: "\""))
        if let accessToken {
            claims.append(contentsOf: #","ath":""#.utf8)
            (tokenHash ?? AccessTokenHash()).appendHash(of: accessToken, to: &claims)
            claims.append(UInt8(ascii: "\""))
        }
        if let nonce {
            claims.append(contentsOf: #","nonce":"#.utf8)
            ProofBytes.appendJSONString(nonce, to: &claims)
        }
        claims.append(UInt8(ascii: "}"))

        var output: [UInt8] = []
        output.reserveCapacity(header.count + 1 + Base64URL.encodedLength(claims.count) + 1 + 86)
        output.append(contentsOf: header)
        output.append(UInt8(ascii: "."))
        // The claims are encoded in place into the proof (one buffer, no copy). Fuzzed: base64url.
        claims.withUnsafeBufferPointer { Base64URL.append(buffer: $0, to: &output) }
        try sign(&output)
        return String(decoding: output, as: UTF8.self)
    }
}
