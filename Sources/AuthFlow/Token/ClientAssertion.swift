import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `aud` of a client assertion (RFC 7523 §3 item 3): who the provider
/// expects to find there.
///
/// The default is ``issuer``: the issuer identifier as the single `aud`
/// string, as the OpenID Connect Core errata and draft-ietf-oauth-rfc7523bis
/// require. An assertion addressed to the issuer is useless at any other
/// provider, even one whose metadata names this provider's endpoints (the
/// JWT client-authentication audience attack disclosed by the OpenID
/// Foundation in February 2025).
///
/// ``tokenEndpoint`` is a compatibility option for providers that accept
/// only their token endpoint URL; ``value(_:)`` names a fixed audience. When
/// the client has no issuer (explicit endpoints, given by the caller rather
/// than discovered), ``issuer`` falls back to the token endpoint URL.
public struct ClientAssertionAudience: Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        case tokenEndpoint, issuer
        case fixed(String)
    }

    let kind: Kind

    /// The token endpoint URL: a compatibility option for providers that
    /// do not accept their issuer identifier.
    public static let tokenEndpoint = ClientAssertionAudience(kind: .tokenEndpoint)
    /// The issuer identifier from the provider's metadata (the default).
    public static let issuer = ClientAssertionAudience(kind: .issuer)
    /// Exactly `audience`.
    public static func value(_ audience: String) -> ClientAssertionAudience { ClientAssertionAudience(kind: .fixed(audience)) }

    /// The audience string for a provider with this issuer and token endpoint.
    func resolve(issuer: Issuer?, tokenEndpoint: URL) -> String {
        switch kind {
        case .tokenEndpoint: tokenEndpoint.absoluteString
        case .issuer: issuer?.identifier ?? tokenEndpoint.absoluteString
        case .fixed(let value): value
        }
    }

    /// `token_endpoint`, `issuer` or the fixed value.
    public var description: String {
        switch kind {
        case .tokenEndpoint: "token_endpoint"
        case .issuer: "issuer"
        case .fixed(let value): value
        }
    }
}

/// Builds the JWT a client authenticates with (RFC 7523 §2.2 and §3):
/// `iss` = `sub` = the client id, `aud`, a fresh random `jti`, `iat` and an
/// `exp` ``lifetime`` seconds later. Each request gets a new one.
package enum ClientAssertion {
    /// `client_assertion_type` for a JWT (RFC 7523 §2.2).
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// Seconds an assertion is valid: long enough for one request, short
    /// enough that a captured one is soon useless.
    static let lifetime: TimeInterval = 60

    /// What signs an assertion: the client's private key or (HS256) its secret.
    package enum Signer: Sendable {
        case key(ClientAssertionKey)
        case secret(String)
    }

    /// A signed assertion for `clientID` addressed to `audience`.
    static func make(clientID: String, audience: String, signer: Signer, now: Date = Date()) throws -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims: [String: JSONMemberValue] = [
            "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience),
            "jti": .string(SecureRandom.token()),
            "iat": .number(Double(issuedAt)), "exp": .number(Double(issuedAt + Int(lifetime))),
        ]
        return try compact(header: [:], claims: claims, signer: signer)
    }

    /// A compact JWS of `claims` signed by `signer`; `header` members
    /// override the defaults (`typ: JWT`, the signer's `alg` and `kid`).
    /// Package-visible so that the provider's tests can build bad assertions.
    package static func compact(header extra: [String: JSONMemberValue], claims: [String: JSONMemberValue], signer: Signer) throws -> String
    {
        var header: [String: JSONMemberValue] = ["typ": .string("JWT")]
        switch signer {
        case .key(let key):
            header["alg"] = .string(key.algorithm)
            if let kid = key.keyID { header["kid"] = .string(kid) }
        case .secret:
            header["alg"] = .string("HS256")
        }
        header.merge(extra) { _, new in new }
        let input = "\(try encode(header)).\(try encode(claims))"
        let signature: [UInt8] =
            switch signer {
            case .key(let key): try key.sign(Array(input.utf8))
            case .secret(let secret):
                Array(HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(secret.utf8))))
            }
        return "\(input).\(Base64URL.encode(signature))"
    }

    /// Base64url of the JSON object, keys sorted (stable output).
    private static func encode(_ object: [String: JSONMemberValue]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Base64URL.encode(Array(try encoder.encode(JSONMemberValue.object(object))))
    }
}
