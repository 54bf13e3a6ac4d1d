public import AuthFlow
public import AuthFlowHummingbird
import BenchmarkFixtures
public import Crypto
import Foundation
public import Hummingbird
public import Logging
public import _CryptoExtras

/// An API (`https://api.example.com/v1`) whose authorization server is served
/// from memory (discovery, JWK Set, introspection), and one RFC 9068 access
/// token per algorithm, signed for it.
public final class AccessTokenFixture: Sendable {
    public static let issuer = "https://id.example.com"
    public static let resourceURL = "https://api.example.com/v1"
    public static let opaqueToken = "opaque-2YotnFZFEjr1zCsicMWpAA"

    public struct Token: Sendable {
        public let algorithm: String
        public let compact: String
        public let signingInput: [UInt8]
        public let signature: [UInt8]
    }

    public let rsaPublicKey: _RSA.Signing.PublicKey
    public let p256PublicKey: P256.Signing.PublicKey
    public let es256: Token
    public let rs256: Token
    public let server: AuthorizationServerInMemory
    public let resource: ProtectedResource
    public let middleware: AccessTokenMiddleware<BenchmarkContext>
    /// The engine's JWT check alone (signature, `iss`, `aud`, `exp`, `nbf`, `iat`), with the same keys.
    public let verifier: JWTVerifier

    public init() throws {
        let rsaKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let p256Key = P256.Signing.PrivateKey()
        rsaPublicKey = rsaKey.publicKey
        p256PublicKey = p256Key.publicKey
        let now = Int(Date().timeIntervalSince1970)
        // A day of validity: the middleware checks against the clock.
        let claims = """
            {"iss":"\(Self.issuer)","sub":"248289761001","aud":"\(Self.resourceURL)","client_id":"s6BhdRkqt3",\
            "exp":\(now + 86_400),"iat":\(now),"jti":"dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",\
            "scope":"openid profile orders:read orders:write","auth_time":\(now - 5),"acr":"urn:mace:incommon:iap:silver"}
            """
        let es = try Fixture.sign(header: #"{"alg":"ES256","kid":"ec-1","typ":"at+jwt"}"#, claims: claims) { input in
            Array(try p256Key.signature(for: SHA256.hash(data: input)).rawRepresentation)
        }
        es256 = Token(algorithm: "ES256", compact: es.compact, signingInput: es.signingInput, signature: es.signature)
        let rs = try Fixture.sign(header: #"{"alg":"RS256","kid":"rsa-1","typ":"at+jwt"}"#, claims: claims) { input in
            Array(try rsaKey.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        rs256 = Token(algorithm: "RS256", compact: rs.compact, signingInput: rs.signingInput, signature: rs.signature)

        let primitives = try rsaKey.publicKey.getKeyPrimitives()
        let point = Array(p256Key.publicKey.x963Representation)
        server = AuthorizationServerInMemory(
            jwks: """
                {"keys":[\
                {"kty":"RSA","use":"sig","alg":"RS256","kid":"rsa-1","n":"\(B64URL.encode(primitives.modulus))","e":"\(B64URL.encode(primitives.publicExponent))"},\
                {"kty":"EC","use":"sig","alg":"ES256","kid":"ec-1","crv":"P-256","x":"\(B64URL.encode(point[1...32]))","y":"\(B64URL.encode(point[33...64]))"}\
                ]}
                """,
            introspection: """
                {"active":true,"iss":"\(Self.issuer)","aud":"\(Self.resourceURL)","sub":"248289761001","client_id":"s6BhdRkqt3",\
                "scope":"orders:read","exp":\(now + 86_400)}
                """)
        var options = ProtectedResourceOptions()
        options.introspectionClient = (id: "orders-api", secret: "orders-api-secret")
        options.introspectionCacheMaximumAge = 86_400
        let semaphore = DispatchSemaphore(value: 0)
        let box = ResourceBox()
        let server = server
        Task {
            do {
                box.result = .success(
                    try await ProtectedResource.discover(
                        issuer: Issuer(Self.issuer), resource: URL(string: Self.resourceURL)!, options: options, transport: server))
            } catch {
                box.result = .failure(error)
            }
            semaphore.signal()
        }
        semaphore.wait()
        resource = try box.result!.get()
        middleware = AccessTokenMiddleware(resource, requiredScopes: ["orders:read"])
        verifier = JWTVerifier(
            issuer: try Issuer(Self.issuer), audience: Self.resourceURL,
            keys: try KeySetCache(jwksURI: URL(string: Self.issuer + "/jwks")!, transport: server))
    }

    public func rawVerify(_ token: Token) -> Bool {
        if token.algorithm == "ES256" {
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature) else { return false }
            return p256PublicKey.isValidSignature(signature, for: SHA256.hash(data: token.signingInput))
        }
        let signature = _RSA.Signing.RSASignature(rawRepresentation: token.signature)
        return rsaPublicKey.isValidSignature(signature, for: SHA256.hash(data: token.signingInput), padding: .insecurePKCS1v1_5)
    }

    /// Fills the JWK Set and introspection caches and checks every token, before anything is measured.
    public func warm() async throws {
        for token in [es256.compact, rs256.compact] {
            let verified = try await verifier.verify(token)
            precondition(verified.subject == "248289761001")
        }
        for token in [es256.compact, rs256.compact, Self.opaqueToken] {
            let verified = try await resource.verify(
                authorization: "Bearer " + token, method: "GET", path: "/v1/orders", requiredScopes: ["orders:read"])
            precondition(verified.subject == "248289761001")
        }
        precondition(rawVerify(es256) && rawVerify(rs256))
        // Discovery, the JWK Set and the introspection answer are cached from here on.
        precondition(server.requests >= 3)
    }
}

/// The discovery result, handed from the task that made it.
final class ResourceBox: @unchecked Sendable {
    var result: Result<ProtectedResource, any Error>?
}

/// The authorization server's documents, from memory; counts the requests.
public final class AuthorizationServerInMemory: HTTPTransport, @unchecked Sendable {
    private let jwks: Data
    private let introspection: Data
    private let lock = NSLock()
    private var count = 0

    init(jwks: String, introspection: String) {
        self.jwks = Data(jwks.utf8)
        self.introspection = Data(introspection.utf8)
    }

    public var requests: Int { lock.withLock { count } }

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        lock.withLock { count += 1 }
        let body: Data
        switch request.url.path {
        case "/.well-known/openid-configuration":
            body = Data(
                """
                {"issuer":"\(AccessTokenFixture.issuer)","authorization_endpoint":"\(AccessTokenFixture.issuer)/authorize",\
                "token_endpoint":"\(AccessTokenFixture.issuer)/token","jwks_uri":"\(AccessTokenFixture.issuer)/jwks",\
                "introspection_endpoint":"\(AccessTokenFixture.issuer)/introspect","response_types_supported":["code"],\
                "subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256","ES256"]}
                """.utf8)
        case "/jwks": body = jwks
        case "/introspect": body = introspection
        default: return HTTPTransportResponse(status: 404, headers: [], body: Data())
        }
        return HTTPTransportResponse(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=86400")], body: body)
    }
}

/// A request context for the benchmarks: Hummingbird's storage and the token.
public struct BenchmarkContext: AccessTokenRequestContext {
    /// What Hummingbird makes a context from.
    public struct Source: RequestContextSource {
        public var logger: Logger

        public init(logger: Logger) {
            self.logger = logger
        }
    }

    public var coreContext: CoreRequestContextStorage
    public var accessToken: VerifiedAccessToken?

    public init(source: Source) {
        coreContext = .init(source: source)
    }
}
