#if EmbeddedProvider && PostgreSQL // the package traits
public import AuthFlow
public import AuthFlowPostgres
import Crypto
import Foundation
public import Hummingbird
public import Logging
import NIOCore
public import ServiceLifecycle

/// The backend-for-frontend pattern over a ``HandoffBackend``: the backend
/// keeps each user's tokens in a ``PostgresSessionTable`` shared by every
/// instance behind the load balancer, and the browser or app holds only an
/// opaque session cookie.
///
/// - `POST /auth/complete` redeems the app's ``AuthorizationGrant`` (as
///   ``HandoffBackend``), stores the session and answers ``SignedInUser``
///   with a `Set-Cookie` of a new random session ID (256 bits, `HttpOnly`,
///   `SameSite=Lax`, `Secure` unless ``secureCookie`` is off for loopback).
/// - `GET /api/userinfo` calls the provider's userinfo endpoint with the
///   session's token, refreshed when needed: one refresh across all
///   instances, however many requests arrive at once.
/// - `POST /auth/logout` revokes the tokens and leaves a tombstone, so no
///   instance serves or refreshes the session again.
///
/// The table is keyed by the SHA-256 of the cookie, not the cookie itself: a
/// copy of the table does not hold a usable session ID (and the records are
/// encrypted).
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct SessionBackend: Sendable {
    /// The code redemption (the confidential client is `handoff.client`).
    public let handoff: HandoffBackend
    /// The sessions every instance shares.
    public let sessions: PostgresSessionTable
    /// The cookie's name.
    public var cookieName = "authflow_session"
    /// Whether the cookie carries `Secure` (turn off only for http on loopback).
    public var secureCookie = true

    /// A backend that redeems with `handoff` and keeps sessions in `sessions`.
    public init(handoff: HandoffBackend, sessions: PostgresSessionTable) {
        self.handoff = handoff
        self.sessions = sessions
    }

    /// Redeems `grant`, stores the session, and returns the user and the new session ID.
    public func signIn(_ grant: AuthorizationGrant) async throws -> (user: SignedInUser, sessionID: String) {
        let (credentials, user) = try await handoff.redeem(grant)
        let sessionID = SecureSessionID.make()
        _ = try await AuthSession.start(client: handoff.client, credentials: credentials, store: try store(for: sessionID))
        return (user, sessionID)
    }

    /// The stored session of `sessionID`, or nil when there is none (never
    /// signed in, signed out, or ended on any instance).
    public func session(_ sessionID: String) async throws -> AuthSession? {
        let client = handoff.client
        return try await AuthSession.restore(
            from: try store(for: sessionID), authentication: client.authentication, transport: client.transport, logger: client.logger)
    }

    /// The routes of the backend.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.post("/auth/complete") { request, context -> Response in
            guard let grant = try? await request.decode(as: AuthorizationGrant.self, context: context) else {
                return HandoffBackend.json(.badRequest, ["error": "invalid_request"])
            }
            do {
                let (user, sessionID) = try await signIn(grant)
                var response = HandoffBackend.json(.ok, user)
                response.headers[.setCookie] = cookie(sessionID, maxAge: nil)
                return response
            } catch let error as AuthFlowError {
                return HandoffBackend.refusal(error)
            }
        }
        router.get("/api/userinfo") { request, _ -> Response in
            guard let sessionID = sessionID(in: request), let session = try await session(sessionID),
                let endpoint = handoff.client.metadata.userinfoEndpoint
            else {
                return HandoffBackend.json(.unauthorized, ["error": "not_signed_in"])
            }
            do {
                let answer = try await session.send(
                    HTTPTransportRequest(method: "GET", url: endpoint, headers: [("Accept", "application/json")]))
                return Response(
                    status: .init(code: answer.status), headers: [.contentType: "application/json", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
            } catch let error as AuthFlowError where error.category == .reauthenticationRequired {
                return HandoffBackend.json(.unauthorized, ["error": "not_signed_in"])
            } catch let error as AuthFlowError {
                return HandoffBackend.json(HandoffBackend.status(for: error), ["error": error.category.rawValue])
            }
        }
        router.post("/auth/logout") { request, _ -> Response in
            var response = HandoffBackend.json(.ok, ["signed_out": true])
            response.headers[.setCookie] = cookie("", maxAge: 0)
            guard let sessionID = sessionID(in: request), let session = try await session(sessionID) else { return response }
            _ = try await session.signOut()
            return response
        }
        return router
    }

    /// An application serving ``router()`` on 127.0.0.1:`port` (0: ephemeral),
    /// reporting the bound port through `onRunning`.
    public func application(
        port: Int = 0, logger: Logger = Logger(label: "SessionBackend"),
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        Application(
            router: router(), configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "session-backend"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// The row of `sessionID`: its SHA-256, in hex.
    private func store(for sessionID: String) throws -> PostgresCredentialStore {
        try sessions.store(sessionID: SHA256.hash(data: Data(sessionID.utf8)).map { String(format: "%02x", $0) }.joined())
    }

    private func sessionID(in request: Request) -> String? {
        guard let header = request.headers[.cookie] else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == cookieName, SecureSessionID.isWellFormed(pair[1]) { return String(pair[1]) }
        }
        return nil
    }

    private func cookie(_ value: String, maxAge: Int?) -> String {
        var text = "\(cookieName)=\(value); Path=/; HttpOnly; SameSite=Lax"
        if secureCookie { text += "; Secure" }
        if let maxAge { text += "; Max-Age=\(maxAge)" }
        return text
    }
}

/// Session IDs: 32 random bytes in base64url (43 characters).
enum SecureSessionID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == 43
            && text.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
            }
    }
}
#endif
