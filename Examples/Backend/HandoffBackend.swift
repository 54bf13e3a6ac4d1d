#if EmbeddedProvider // the EmbeddedProvider package trait
public import AuthFlow
import Foundation
public import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle

/// What the backend answers the app once it has finished the sign-in.
///
/// Never the user's `sub`: the pairwise identifier stays on the backend,
/// which keys its records by it (ZenKey's rule: "Do not transmit this sub to
/// your client app"). The app gets what it shows and the level reached.
public struct SignedInUser: Codable, Sendable, Equatable {
    /// From userinfo, when given.
    public var name: String?
    /// From userinfo, when given.
    public var email: String?
    /// The scopes the provider granted.
    public var scopes: [String]
    /// The ID token's `acr`, when it names one: the level the user signed in at.
    public var authenticationContextClass: String?
    /// The grant's correlation ID, when it has one, so that the app can match
    /// this answer to its sign-in.
    public var correlationID: String?

    enum CodingKeys: String, CodingKey {
        case name, email, scopes
        case authenticationContextClass = "acr"
        case correlationID = "correlation_id"
    }
}

/// The "secure server" pattern (ZenKey): the app runs the authorization
/// request in the system browser, validates the callback, and posts the
/// resulting ``AuthorizationGrant`` (code, PKCE verifier, redirect URI,
/// nonce, issuer) to this backend, which redeems it as a confidential
/// client, verifies the ID token with the app's nonce and reads userinfo.
///
/// The grant carries what the request sent beside the code: `acr_values`,
/// the consent `context` and the `correlation_id`; the backend receives them
/// with it, and the answer repeats the correlation ID.
///
/// `POST /auth/complete` with the grant as JSON answers ``SignedInUser`` as
/// JSON (without the user's `sub`), or `{"error": category, "oauth_error": …}` with 400 (the provider
/// refused), 401 (a security check failed) or 502 (the provider could not be
/// reached).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct HandoffBackend: Sendable {
    /// The confidential client the backend redeems codes with.
    public let client: OAuthClient

    /// A backend for `client` (which should authenticate with a secret).
    public init(client: OAuthClient) {
        self.client = client
    }

    /// Redeems `grant` and reads userinfo (its `sub` checked against the ID
    /// token's). The answer holds no `sub`: keep the one of
    /// ``redeem(_:)``'s credentials on the backend.
    public func complete(_ grant: AuthorizationGrant) async throws -> SignedInUser {
        try await redeem(grant).user
    }

    /// ``complete(_:)`` with the credentials beside the user, for a backend
    /// that keeps the session (``SessionBackend``).
    public func redeem(_ grant: AuthorizationGrant) async throws -> (credentials: OAuthCredentials, user: SignedInUser) {
        let credentials = try await client.exchange(grant)
        guard let subject = credentials.subject else {
            throw AuthFlowError(.invalidResponse, "the provider issued no ID token")
        }
        var info: OpenIDUserInfo?
        if client.metadata.userinfoEndpoint != nil {
            info = try await client.userInfo(accessToken: credentials.accessToken, expectedSubject: subject)
        }
        let user = SignedInUser(
            name: info?.name, email: info?.email, scopes: credentials.scopes,
            authenticationContextClass: credentials.idToken?.authenticationContextClass, correlationID: grant.correlationID)
        return (credentials, user)
    }

    /// The routes of the backend.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/auth/complete") { request, context -> Response in
            let grant: AuthorizationGrant
            do {
                grant = try await request.decode(as: AuthorizationGrant.self, context: context)
            } catch {
                return Self.json(.badRequest, ["error": "invalid_request"])
            }
            do {
                return Self.json(.ok, try await complete(grant))
            } catch let error as AuthFlowError {
                return Self.refusal(error)
            }
        }
        return router
    }

    /// An application serving ``router()`` on 127.0.0.1:`port` (0: ephemeral),
    /// reporting the bound port through `onRunning`.
    public func application(
        port: Int = 0, logger: Logger = Logger(label: "HandoffBackend"),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        Application(
            router: router(), configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "handoff-backend"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// The answer to a sign-in that failed: its category and OAuth error, with ``status(for:)``.
    static func refusal(_ error: AuthFlowError) -> Response {
        json(status(for: error), ["error": error.category.rawValue, "oauth_error": error.oauth?.error ?? ""])
    }

    static func status(for error: AuthFlowError) -> HTTPResponse.Status {
        switch error.category {
        case .oauthError, .configuration, .invalidResponse: .badRequest
        case .network, .timeout: .badGateway
        default: .unauthorized
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
#endif
