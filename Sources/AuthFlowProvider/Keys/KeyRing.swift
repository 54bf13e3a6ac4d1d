#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The provider's signing keys: one active key per algorithm signs; keys
/// replaced by a rotation stay published (so tokens they signed still
/// verify) until they are retired.
struct KeyRing: Sendable {
    private(set) var active: [SigningAlgorithm: SigningKey] = [:]
    private(set) var retiring: [SigningKey] = []

    /// Starts with the given keys (the last one of each algorithm is active),
    /// generating an RS256 and an ES256 key for algorithms with none.
    init(keys: [SigningKey]) throws {
        for key in keys { active[key.algorithm] = key }
        for algorithm in SigningAlgorithm.allCases where active[algorithm] == nil {
            active[algorithm] = try SigningKey.generate(algorithm)
        }
    }

    /// The key that signs with `algorithm`.
    func signer(for algorithm: SigningAlgorithm) -> SigningKey {
        active[algorithm]!
    }

    /// Adds a new active key for every algorithm; the old ones keep being
    /// published until ``retire()``. Returns the new key ids.
    mutating func rotate() throws -> [String] {
        var added: [String] = []
        for algorithm in SigningAlgorithm.allCases {
            let key = try SigningKey.generate(algorithm)
            if let old = active[algorithm] { retiring.append(old) }
            active[algorithm] = key
            added.append(key.keyID)
        }
        return added
    }

    /// Stops publishing the keys replaced by earlier rotations; returns their ids.
    mutating func retire() -> [String] {
        defer { retiring.removeAll() }
        return retiring.map(\.keyID)
    }

    /// The public JWK Set document: active keys, then retiring ones.
    func jwks() throws -> JSONMemberValue {
        let keys = SigningAlgorithm.allCases.compactMap { active[$0] } + retiring
        return .object(["keys": .array(try keys.map { .object(try $0.publicJWK()) })])
    }
}
#endif
