import AuthFlow
import Crypto
import Foundation
import _CryptoExtras

/// Everything the ID-token benchmarks share: two signing keys, one token per
/// algorithm signed with them, and a verifier whose JWK Set cache was filled
/// once from an in-memory transport (so the benchmarks measure the cached path).
public struct Fixture: Sendable {
    public static let issuer = "https://id.example.com"
    public static let clientID = "bench-client"
    public static let issuedAt: TimeInterval = 1_750_000_000
    /// The verification time: ten seconds after `iat`, well before `exp`.
    public static let now = Date(timeIntervalSince1970: issuedAt + 10)

    /// One signed token and what a raw verification of it needs.
    public struct Token: Sendable {
        public let compact: String
        public let signingInput: [UInt8]
        public let signature: [UInt8]
    }

    public let rsaPublicKey: _RSA.Signing.PublicKey
    public let p256PublicKey: P256.Signing.PublicKey
    public let rs256: Token
    public let es256: Token
    public let transport: JWKSTransport
    public let keys: KeySetCache
    public let verifier: IDTokenVerifier
    public let rules: IDTokenRules

    public init() throws {
        let rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let p256Key = P256.Signing.PrivateKey()
        rsaPublicKey = rsaKey.publicKey
        p256PublicKey = p256Key.publicKey

        let claims = Fixture.claimsJSON()
        rs256 = try Fixture.sign(header: #"{"alg":"RS256","kid":"rsa-1","typ":"JWT"}"#, claims: claims) { input in
            Array(try rsaKey.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        es256 = try Fixture.sign(header: #"{"alg":"ES256","kid":"ec-1","typ":"JWT"}"#, claims: claims) { input in
            Array(try p256Key.signature(for: SHA256.hash(data: input)).rawRepresentation)
        }

        let primitives = try rsaKey.publicKey.getKeyPrimitives()
        let point = Array(p256Key.publicKey.x963Representation) // 0x04 || x || y
        let jwks = """
            {"keys":[\
            {"kty":"RSA","use":"sig","alg":"RS256","kid":"rsa-1","n":"\(B64URL.encode(primitives.modulus))","e":"\(B64URL.encode(primitives.publicExponent))"},\
            {"kty":"EC","use":"sig","alg":"ES256","kid":"ec-1","crv":"P-256","x":"\(B64URL.encode(point[1...32]))","y":"\(B64URL.encode(point[33...64]))"}\
            ]}
            """
        transport = JWKSTransport(body: Data(jwks.utf8))
        keys = try KeySetCache(jwksURI: URL(string: "https://id.example.com/jwks")!, transport: transport)
        verifier = IDTokenVerifier(keys: keys, clientSecret: nil)
        rules = IDTokenRules(issuer: try Issuer(Fixture.issuer), clientID: Fixture.clientID, nonce: "n-0S6_WzA2Mj")
    }

    /// A realistic ID-token payload: the required claims, a nonce, and a few profile claims.
    public static func claimsJSON() -> String {
        """
        {"iss":"\(issuer)","sub":"248289761001","aud":"\(clientID)","exp":\(Int(issuedAt) + 3600),"iat":\(Int(issuedAt)),\
        "auth_time":\(Int(issuedAt) - 5),"nonce":"n-0S6_WzA2Mj","name":"Jane Doe","given_name":"Jane","family_name":"Doe",\
        "email":"janedoe@example.com","email_verified":true,"preferred_username":"j.doe","amr":["pwd","mfa"],"acr":"urn:mace:incommon:iap:silver"}
        """
    }

    /// Builds a compact JWS by hand: BASE64URL(header) '.' BASE64URL(claims) '.' BASE64URL(signature).
    public static func sign(header: String, claims: String, _ signer: ([UInt8]) throws -> [UInt8]) throws -> Token {
        let input = B64URL.encode(Array(header.utf8)) + "." + B64URL.encode(Array(claims.utf8))
        let signingInput = Array(input.utf8)
        let signature = try signer(signingInput)
        return Token(compact: input + "." + B64URL.encode(signature), signingInput: signingInput, signature: signature)
    }

    /// Fills the JWK Set cache and checks that both tokens verify, before anything is measured.
    public func warm() async throws {
        _ = try await keys.keySet()
        for token in [rs256, es256] {
            let claims = try await verifier.verify(token.compact, rules: rules, accessToken: nil, now: Fixture.now)
            precondition(claims.subject == "248289761001", "fixture token did not verify")
        }
        precondition(transport.requests == 1, "the JWK Set should have been fetched exactly once")
    }
}

/// Serves one JWK Set document from memory and counts the requests.
public final class JWKSTransport: HTTPTransport, @unchecked Sendable {
    private let body: Data
    private let lock = NSLock()
    private var count = 0

    init(body: Data) { self.body = body }

    public var requests: Int { lock.withLock { count } }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        lock.withLock { count += 1 }
        return HTTPTransportResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=86400")], body: body)
    }
}

/// Unpadded base64url (RFC 4648 §5), for building the fixture only.
public enum B64URL {
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
