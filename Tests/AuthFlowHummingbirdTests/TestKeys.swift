#if Hummingbird && EmbeddedProvider
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Crypto
import Foundation
import _CryptoExtras

/// The provider's signing keys, generated here so that the tests can sign
/// access and logout tokens the provider's own JWK Set verifies.
enum TestKeys {
    static let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    static let ec = P256.Signing.PrivateKey()
    /// A key the provider does not publish.
    static let stranger = P256.Signing.PrivateKey()

    static let signingKeys: [SigningKey] = [
        try! SigningKey(pem: rsa.pemRepresentation, algorithm: .rs256, keyID: "api-rs256"),
        try! SigningKey(pem: ec.pemRepresentation, algorithm: .es256, keyID: "api-es256"),
    ]

    enum Signer {
        case rs256, es256, stranger
    }

    /// A compact JWS of `claims` with `header` (alg and kid added unless given).
    static func sign(
        _ claims: [String: JSONMemberValue], header: [String: JSONMemberValue] = ["typ": .string("at+jwt")], with signer: Signer = .es256
    )
        throws -> String
    {
        var header = header
        switch signer {
        case .rs256:
            if header["alg"] == nil { header["alg"] = .string("RS256") }
            if header["kid"] == nil { header["kid"] = .string("api-rs256") }
        case .es256, .stranger:
            if header["alg"] == nil { header["alg"] = .string("ES256") }
            if header["kid"] == nil { header["kid"] = .string(signer == .es256 ? "api-es256" : "unknown-kid") }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let input = Base64URL.encode(Array(try encoder.encode(header))) + "." + Base64URL.encode(Array(try encoder.encode(claims)))
        let signature: [UInt8]
        switch signer {
        case .rs256:
            signature = Array(try rsa.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
        case .es256: signature = Array(try ec.signature(for: Data(input.utf8)).rawRepresentation)
        case .stranger: signature = Array(try stranger.signature(for: Data(input.utf8)).rawRepresentation)
        }
        return input + "." + Base64URL.encode(signature)
    }
}
#endif
