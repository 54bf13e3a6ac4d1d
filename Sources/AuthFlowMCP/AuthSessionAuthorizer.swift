#if MCP // the MCP package trait
public import AuthFlow
public import Foundation
public import Logging
public import MCP

/// Signs the Model Context Protocol swift-sdk's `HTTPClientTransport` in to
/// an MCP server with AuthFlow: pass it as the transport's `authorizer`.
///
/// ```swift
/// let authorizer = AuthSessionAuthorizer(store: store, identity: identity) { client, scopes in
///     try await client.signIn(redirectURI: redirect, scopes: scopes, userAgent: agent)
/// }
/// let transport = HTTPClientTransport(endpoint: server, streaming: false, authorizer: authorizer)
/// ```
///
/// Nothing but the server's URL is needed. The first request goes without a
/// token; the server's 401 starts the sign-in by URL
/// (`OAuthClient.signIn(toResource:challenge:identity:transport:timeout:leeway:logger:_:)`):
/// the server's protected-resource metadata (RFC 9728), its authorization
/// server, the client's identity (a pre-registered client ID, a Client ID
/// Metadata Document, the registration kept in `store`, or a new RFC 7591
/// registration), then your `signIn` in the browser, with the server's URL
/// as the RFC 8707 `resource` of every request. The session, with the
/// registration, is written to `store`; the next launch restores it offline.
///
/// On the transport's requests:
///
/// - before each one, a token about to expire is refreshed (the rotated
///   refresh token is saved to `store` first);
/// - a 401 refreshes once and retries; when the session cannot refresh
///   (none yet, `invalid_grant`), it signs in again;
/// - a 403 `insufficient_scope` signs in once more with the granted scopes
///   and those the server names (step-up), and retries. A server that still
///   refuses, or asks only for scopes that were granted or asked for
///   already, ends the request with `AuthFlowError.Category.oauthError`
///   `insufficient_scope` instead of asking the user again;
/// - the token goes to the server's origin only: a transport for another
///   origin gets no `Authorization` from this authorizer.
///
/// The transport reports a failed authorization as an `MCPError` whose text
/// is the error's description; ``lastFailure`` keeps the typed
/// `AuthFlowError`. Use one authorizer, and one store, per MCP
/// server. The `URLSession` the transport offers is not used: discovery,
/// registration and token requests go through `transport`, with AuthFlow's
/// limits (no redirects for token requests, bounded response sizes).
public final class AuthSessionAuthorizer: HTTPClientAuthorizer {
    /// Signs the user in interactively with `client` (found for the MCP
    /// server, its `OAuthClient.resource` set) asking for
    /// `scopes`, and returns the credentials: usually
    /// `OAuthClient.signIn(redirectURI:scopes:options:userAgent:)`
    /// with the platform's user agent (the loopback listener and the system
    /// browser on a desktop, `ASWebAuthenticationSession` on iOS). Called for
    /// the first sign-in and for each step-up.
    public typealias SignIn = @Sendable (_ client: OAuthClient, _ scopes: [String]) async throws -> OAuthCredentials

    /// Where the session (tokens, provider metadata, registration) is kept.
    public let store: any CredentialStore
    /// How the client identifies itself at the MCP server's authorization
    /// server. A registration kept in ``store`` is used for the same issuer
    /// when this names no stored registration itself.
    public let identity: ClientIdentity
    /// The scopes of the first sign-in; nil asks for those of the server's
    /// challenge, else its metadata's `scopes_supported`.
    public let scopes: [String]?
    let signIn: SignIn
    /// Enterprise-managed authorization, when the server is configured so.
    public let enterprise: EnterpriseAuthorization?
    let transport: any HTTPTransport
    let timeout: TimeInterval
    let leeway: TimeInterval
    let logger: Logger
    let gate = SignInGate()
    let fields = LockedValue(AuthorizerFields())

    /// Creates an authorizer.
    /// - Parameters:
    ///   - store: where the session is kept and restored from: a file or
    ///     Keychain store keeps the registration and the rotated refresh
    ///     token across launches.
    ///   - identity: the client's identity; usually a registration request
    ///     (`ClientIdentity(registration:)`) with the redirect URI `signIn` uses.
    ///   - scopes: the scopes of the first sign-in (nil: the server's).
    ///   - transport: how AuthFlow reaches the server's metadata and the
    ///     authorization server.
    ///   - timeout: the bound of each of AuthFlow's requests, in seconds.
    ///   - leeway: a token expiring within this many seconds is refreshed first.
    ///   - logger: where to log (never a token).
    ///   - signIn: the interactive sign-in (``SignIn``).
    public convenience init(
        store: any CredentialStore, identity: ClientIdentity, scopes: [String]? = nil,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval = 60,
        logger: Logger = .authFlow("MCP"), signIn: @escaping SignIn
    ) {
        self.init(
            store: store, identity: identity, enterprise: nil, scopes: scopes, transport: transport, timeout: timeout, leeway: leeway,
            logger: logger, signIn: signIn)
    }

    /// Creates an authorizer for an enterprise-managed MCP server (MCP's
    /// enterprise-managed authorization, SEP-990): its access tokens come
    /// from identity assertions (ID-JAG) of the user's session at the
    /// company's identity provider, presented at the authorization server
    /// the configuration names; no browser opens. See
    /// ``EnterpriseAuthorization``.
    /// - Parameters:
    ///   - store: where the MCP server's access token is kept for this run.
    ///   - enterprise: the identity provider's session and the configured authorization server.
    ///   - scopes: the scopes to ask for (nil: none named; the grant's own).
    ///   - leeway: a token expiring within this many seconds is replaced first.
    ///   - logger: where to log (never a token).
    public convenience init(
        store: any CredentialStore, enterprise: EnterpriseAuthorization, scopes: [String]? = nil, leeway: TimeInterval = 60,
        logger: Logger = .authFlow("MCP")
    ) {
        self.init(
            store: store, identity: ClientIdentity(), enterprise: enterprise, scopes: scopes, leeway: leeway, logger: logger
        ) { _, _ in
            throw AuthFlowError(.configuration, "an enterprise-managed MCP server is never signed in to in a browser")
        }
    }

    init(
        store: any CredentialStore, identity: ClientIdentity, enterprise: EnterpriseAuthorization?, scopes: [String]?,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, leeway: TimeInterval, logger: Logger,
        signIn: @escaping SignIn
    ) {
        self.enterprise = enterprise
        self.store = store
        self.identity = identity
        self.scopes = scopes
        self.transport = transport
        self.timeout = timeout
        self.leeway = leeway
        self.logger = logger
        self.signIn = signIn
    }

    /// Creates an authorizer whose sign-ins present `userAgent` with
    /// `redirectURI`: for a user agent with a fixed redirect, such as the
    /// Apple layer's `ASWebAuthenticationSession` agent on iOS.
    public convenience init(
        store: any CredentialStore, identity: ClientIdentity, redirectURI: URL, userAgent: some AuthorizationUserAgent,
        scopes: [String]? = nil, transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        leeway: TimeInterval = 60, logger: Logger = .authFlow("MCP")
    ) {
        self.init(
            store: store, identity: identity, scopes: scopes, transport: transport, timeout: timeout, leeway: leeway, logger: logger
        ) { client, scopes in
            try await client.signIn(redirectURI: redirectURI, scopes: scopes, userAgent: userAgent)
        }
    }

    /// The session signed in (or restored) for the MCP server, nil before
    /// the first request that needed one; a step-up replaces it with the
    /// session of the new credentials (in the same store). Sign out with its
    /// `AuthSession.signOut(postLogoutRedirectURI:)`.
    public var session: AuthSession? {
        fields.withLock { $0.session }
    }

    /// The last error that ended an authorization, typed: the transport
    /// passes on only its description.
    public var lastFailure: AuthFlowError? {
        fields.withLock { $0.lastFailure }
    }

    /// Three tries for one request: a sign-in (or refresh), a step-up, and
    /// the request that finds the step-up was not enough.
    public var maxAuthorizationAttempts: Int { 3 }

    /// Refuses an MCP endpoint that is not https, or http on a loopback host.
    public func validateEndpointSecurity(for endpoint: URL) throws {
        _ = try ResourceIdentifier(endpoint)
    }

    /// `Bearer <token>` for a request to the MCP server's origin; nil for
    /// any other origin and before a sign-in.
    public func authorizationHeader(for endpoint: URL) -> String? {
        fields.withLock { $0.held?.authorization(for: endpoint) }
    }
}

/// What the authorizer holds between requests; changed only inside its ``SignInGate``.
struct AuthorizerFields: Sendable {
    /// The session for the MCP server.
    var session: AuthSession?
    /// The token handed to the transport.
    var held: HeldToken?
    /// Whether the store was read (once, at the first request).
    var restored = false
    /// The registration found in the store, for a new sign-in with the same issuer.
    var storedRegistration: ClientRegistration?
    /// The access token that a refresh after a 401 returned: when it is
    /// refused too, the session signs in again instead of refreshing again.
    var refreshedAfterRefusal: String?
    /// Whether the user signed in (or stepped up) during the current
    /// request: a token refused after that ends the request instead of
    /// asking the user again.
    var signedInDuringRequest = false
    /// The scope sets already asked for in a step-up: asking again would not help.
    var steppedUp: [Set<String>] = []
    /// The last error that ended an authorization.
    var lastFailure: AuthFlowError?
}
#endif
