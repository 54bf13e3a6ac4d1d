import Crypto

/// A JWS signature algorithm AuthFlow can verify (RFC 7518 §3, RFC 8037 §3.1).
///
/// The public API names algorithms by their `alg` strings; the verifier turns
/// a token's `alg` into this once and decides everything else (policy, key
/// fit, hash, padding) with it.
enum JWSAlgorithm: UInt8, CaseIterable, Sendable {
    case rs256, rs384, rs512, ps256, ps384, ps512, es256, es384, edDSA, hs256, hs384, hs512

    /// The algorithm named `name`, or nil when AuthFlow cannot verify it (`none` included).
    init?(name: String) {
        self.init(utf8: name.utf8)
    }

    /// The algorithm whose name is these UTF-8 bytes (a JSON string's content
    /// without escapes), or nil.
    init?(utf8 name: some Sequence<UInt8>) {
        // Every name is five ASCII characters: compare them as one integer.
        guard let packed = packedName(name, maxCount: 5) else { return nil }
        switch packed {
        case 0x52_53_32_35_36: self = .rs256 // RS256
        case 0x52_53_33_38_34: self = .rs384 // RS384
        case 0x52_53_35_31_32: self = .rs512 // RS512
        case 0x50_53_32_35_36: self = .ps256 // PS256
        case 0x50_53_33_38_34: self = .ps384 // PS384
        case 0x50_53_35_31_32: self = .ps512 // PS512
        case 0x45_53_32_35_36: self = .es256 // ES256
        case 0x45_53_33_38_34: self = .es384 // ES384
        case 0x45_64_44_53_41: self = .edDSA // EdDSA
        case 0x48_53_32_35_36: self = .hs256 // HS256
        case 0x48_53_33_38_34: self = .hs384 // HS384
        case 0x48_53_35_31_32: self = .hs512 // HS512
        default: return nil
        }
    }

    /// The `alg` value.
    var name: String {
        switch self {
        case .rs256: "RS256"
        case .rs384: "RS384"
        case .rs512: "RS512"
        case .ps256: "PS256"
        case .ps384: "PS384"
        case .ps512: "PS512"
        case .es256: "ES256"
        case .es384: "ES384"
        case .edDSA: "EdDSA"
        case .hs256: "HS256"
        case .hs384: "HS384"
        case .hs512: "HS512"
        }
    }

    /// Whether the key is the client secret (HMAC) rather than a public key.
    var isSymmetric: Bool {
        switch self {
        case .hs256, .hs384, .hs512: true
        default: false
        }
    }

    /// The names of the algorithms verified with public keys, as the public API takes them.
    static let asymmetricNames = Set(allCases.filter { !$0.isSymmetric }.map(\.name))
    /// The names of the HMAC algorithms, usable only by a client that has a secret.
    static let symmetricNames = Set(allCases.filter(\.isSymmetric).map(\.name))
}

/// A set of ``JWSAlgorithm``s as one bit each, so that the policy check on
/// every token is a mask test rather than hashing a string.
struct JWSAlgorithmSet: Sendable, Equatable {
    private var bits: UInt16

    private init(bits: UInt16) { self.bits = bits }

    init(_ algorithms: some Sequence<JWSAlgorithm>) {
        bits = 0
        for algorithm in algorithms { bits |= 1 << algorithm.rawValue }
    }

    /// The algorithms among `names` that AuthFlow can verify; other names are dropped.
    init(names: some Sequence<String>) {
        self.init(names.lazy.compactMap(JWSAlgorithm.init(name:)))
    }

    func contains(_ algorithm: JWSAlgorithm) -> Bool { bits & (1 << algorithm.rawValue) != 0 }

    func intersection(_ other: JWSAlgorithmSet) -> JWSAlgorithmSet { JWSAlgorithmSet(bits: bits & other.bits) }

    func subtracting(_ other: JWSAlgorithmSet) -> JWSAlgorithmSet { JWSAlgorithmSet(bits: bits & ~other.bits) }

    /// RSA signatures, PKCS #1 v1.5 and PSS.
    static let rsa = JWSAlgorithmSet([.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])
    /// HMAC with the client secret.
    static let symmetric = JWSAlgorithmSet(JWSAlgorithm.allCases.filter(\.isSymmetric))
}
