#if EmbeddedProvider // the EmbeddedProvider package trait
/// The JWS algorithms the provider signs with.
public enum SigningAlgorithm: String, Sendable, Codable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256 (2048-bit keys).
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
}
#endif
