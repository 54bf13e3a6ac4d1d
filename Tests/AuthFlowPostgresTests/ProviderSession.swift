#if PostgreSQL && EmbeddedProvider // the package traits
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation

/// A signed-in session at the embedded provider (automatic sign-in, rotating
/// refresh tokens), with a transport that counts refresh grants.
struct ProviderSession {
    let provider: EmbeddedProvider
    let counter: RefreshCounter

    static func with<T>(_ body: (ProviderSession) async throws -> T) async throws -> T {
        let provider = try await EmbeddedProvider.start(.demo)
        do {
            let value = try await body(ProviderSession(provider: provider, counter: RefreshCounter()))
            await provider.stop()
            return value
        } catch {
            await provider.stop()
            throw error
        }
    }

    func client() async throws -> OAuthClient {
        try await OAuthClient(issuer: provider.issuer, clientID: "authflow-demo", transport: counter)
    }

    /// Signs in through the provider's automatic sign-in (its redirect read without following it).
    func signIn(_ client: OAuthClient) async throws -> OAuthCredentials {
        try await client.signIn(
            redirectURI: URL(string: "http://127.0.0.1/callback")!, scopes: ["openid", "offline_access"],
            userAgent: RedirectReader())
    }

    struct RedirectReader: AuthorizationUserAgent {
        func authorize(_ request: AuthorizationRequest) async throws -> URL {
            let response = try await URLSessionTransport().send(HTTPTransportRequest(method: "GET", url: request.url))
            return try URL(string: response.header("Location") ?? "").orThrow()
        }
    }
}

/// A real transport that counts the refresh grants it sends.
final class RefreshCounter: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private let inner = URLSessionTransport()

    private var hook: (@Sendable () async throws -> Void)?

    var refreshes: Int { lock.withLock { count } }

    /// Runs `body` as each refresh grant is about to be sent (a fault at that moment).
    func beforeRefresh(_ body: @escaping @Sendable () async throws -> Void) {
        lock.withLock { hook = body }
    }

    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        if let body = request.body, String(decoding: body, as: UTF8.self).contains("grant_type=refresh_token") {
            let hook = lock.withLock {
                count += 1
                return self.hook
            }
            try await hook?()
        }
        return try await inner.send(request)
    }
}

extension Optional {
    func orThrow() throws -> Wrapped {
        guard let self else { throw AuthFlowError(.invalidResponse, "missing") }
        return self
    }
}
#endif
