#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds compact JWS tokens (RFC 7515) from claims.
enum JWSSigner {
    /// Signs `claims` with `key`; the header has `alg`, `kid` and `typ`.
    static func sign(_ claims: [String: JSONMemberValue], with key: SigningKey, type: String = "JWT") throws -> String {
        let header = type == "JWT" ? key.encodedJWTHeader : try encodedHeader(keyID: key.keyID, algorithm: key.algorithm, type: type)
        let input = "\(header).\(Base64URL.encode(try JSONBody.bytes(.object(claims))))"
        let signature = try key.sign(Array(input.utf8))
        return "\(input).\(Base64URL.encode(signature))"
    }

    /// The base64url JOSE header: `alg`, `kid` and `typ`.
    static func encodedHeader(keyID: String, algorithm: SigningAlgorithm, type: String) throws -> String {
        let header: [String: JSONMemberValue] = ["alg": .string(algorithm.rawValue), "kid": .string(keyID), "typ": .string(type)]
        return Base64URL.encode(try JSONBody.bytes(.object(header)))
    }

    /// The claims of a JWS this provider signed with one of `keys`; nil when
    /// the signature does not check out or the token is malformed.
    static func claims(of token: String, signedBy keys: KeyRing) -> [String: JSONMemberValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerBytes = Base64URL.decode(String(parts[0])),
            let header = try? JSONDecoder().decode(JSONMemberValue.self, from: Data(headerBytes)).objectValue,
            let kid = header["kid"]?.stringValue,
            let claimBytes = Base64URL.decode(String(parts[1])),
            let claims = try? JSONDecoder().decode(JSONMemberValue.self, from: Data(claimBytes)).objectValue,
            let signature = Base64URL.decode(String(parts[2]))
        else { return nil }
        let candidates = SigningAlgorithm.allCases.compactMap { keys.active[$0] } + keys.retiring
        guard let key = candidates.first(where: { $0.keyID == kid }), header["alg"]?.stringValue == key.algorithm.rawValue else {
            return nil
        }
        let input = Array("\(parts[0]).\(parts[1])".utf8)
        return key.verify(signature, for: input) ? claims : nil
    }
}
#endif
