#if MCP && EmbeddedProvider && Hummingbird
import AuthFlow
import AuthFlowTestSupport
import AuthFlowMCP
import AuthFlowProvider
import Foundation

/// The tests' interactive sign-in: the embedded provider signs the demo
/// user in without a page, so following its redirect is the browser. It
/// counts the sign-ins and records the scopes each asked for.
final class HeadlessSignIn: Sendable {
    let asked = LockedValue<[[String]]>([])
    static let redirect = URL(string: "http://127.0.0.1/callback")!

    var count: Int { asked.withLock { $0.count } }

    static var identity: ClientIdentity {
        ClientIdentity(registration: ClientRegistrationRequest(redirectURIs: [redirect], clientName: "AuthFlowMCPTests"))
    }

    /// An authorizer over `store` whose sign-ins this object runs.
    func authorizer(store: any CredentialStore) -> AuthSessionAuthorizer {
        AuthSessionAuthorizer(store: store, identity: Self.identity) { [asked] client, scopes in
            asked.withLock { $0.append(scopes) }
            return try await client.signIn(
                redirectURI: URL(string: "http://127.0.0.1:9/callback")!, scopes: scopes, userAgent: RedirectFollower())
        }
    }
}

/// Follows the provider's redirect and returns it as the callback.
struct RedirectFollower: AuthorizationUserAgent {
    func authorize(_ request: AuthorizationRequest) async throws -> URL {
        try await HeadlessBrowser().redirectLocation(of: request.url)
    }
}
#endif
