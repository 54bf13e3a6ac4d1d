import Crypto

/// The `ath` claim (RFC 9449 §4.2: base64url of the SHA-256 of the access
/// token) of the last token a key made proofs for. A session sends many
/// requests with one token, so the hash is computed once per token.
final class AccessTokenHash: Sendable {
    private let last = LockedValue<(token: String, encoded: [UInt8])?>(nil)

    /// Appends the base64url SHA-256 of `token` to `output`.
    func appendHash(of token: String, to output: inout [UInt8]) {
        if let encoded = last.withLock({ $0?.token == token ? $0?.encoded : nil }) {
            output.append(contentsOf: encoded)
            return
        }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(43)
        var text = token
        // The token's UTF-8 is hashed where it lies (no copy of a secret); swift-crypto takes a raw buffer. Fuzzed: credentials.
        text.withUTF8 { bytes in
            SHA256.hash(data: UnsafeRawBufferPointer(bytes)).withUnsafeBytes {
                Base64URL.append(buffer: $0.assumingMemoryBound(to: UInt8.self), to: &encoded)
            }
        }
        last.withLock { $0 = (token, encoded) }
        output.append(contentsOf: encoded)
    }
}
