#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import Logging

/// Everything an ``EmbeddedProvider`` starts from: where it listens, its
/// clients and users, token lifetimes and signing keys.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
public struct ProviderConfiguration: Sendable {
    /// The port on 127.0.0.1; 0 picks a free one (the default).
    public var port: Int
    /// Registered clients.
    public var clients: [ProviderClient]
    /// Users who can sign in.
    public var users: [ProviderUser]
    /// Token lifetimes.
    public var lifetimes: TokenLifetimes
    /// Signing keys; when empty, an RS256 and an ES256 key are generated at start.
    public var signingKeys: [SigningKey]
    /// How users sign in at the authorization endpoint.
    public var signIn: SignInMode
    /// Where the provider and its HTTP server log (default: warnings only).
    public var logger: Logger
    /// Whether DPoP proofs must carry the provider's nonce (RFC 9449 §8);
    /// a proof without it is answered `use_dpop_nonce` with `DPoP-Nonce`.
    public var requiresDPoPNonce = false
    /// Whether a client assertion may also name the token endpoint URL
    /// (`<issuer>/token`) as its `aud`: a compatibility setting for clients
    /// that cannot address the issuer. Off by default: only the issuer
    /// identifier, as a single string, is accepted (draft-ietf-oauth-rfc7523bis,
    /// the OpenID Connect Core errata), so an assertion captured by another
    /// server is useless here. Arrays and other endpoint URLs are always refused.
    public var acceptsTokenEndpointAssertionAudience = false
    /// Whether clients may register themselves at `/register` (RFC 7591,
    /// open registration: no initial access token). On by default; the
    /// endpoint is advertised as `registration_endpoint`.
    public var allowsDynamicRegistration = true
    /// How client ID metadata documents are fetched and accepted.
    public var clientIDMetadataDocuments = ClientIDMetadataDocumentSettings()
    /// The demo protected resources the provider also serves on its own
    /// listener (``ProviderProtectedResource``). Every client may ask for
    /// their scopes.
    public var protectedResources: [ProviderProtectedResource] = []
    /// Whether access tokens are RFC 9068 JWTs (`typ` `at+jwt`, the default)
    /// or opaque random strings that an API can only check by introspection
    /// (RFC 7662), as many providers issue them.
    public var issuesOpaqueAccessTokens = false
    /// Whether authorization responses carry `iss` (RFC 9207) and the
    /// metadata promises it (`authorization_response_iss_parameter_supported`).
    /// On by default; off, the provider behaves like the many servers that
    /// do not send it (a client's mix-up defence must then do without).
    public var sendsIssuerInAuthorizationResponse = true
    /// The scopes a client that registered itself (`/register`) or is
    /// identified by a client ID metadata document may be granted, besides
    /// `openid` and the protected resources' scopes. By default the OpenID
    /// Connect scopes `profile`, `email` and `offline_access`: a scope only
    /// configured clients have (an `admin`) is never given to a stranger.
    public var scopesForDynamicClients: Set<String> = ["profile", "email", "offline_access"]
    /// Which clients may exchange tokens (RFC 8693) for which audiences and
    /// resources. By default none may.
    public var tokenExchangePolicy = TokenExchangePolicy()
    /// Which clients may get Identity Assertion JWT Authorization Grants
    /// (ID-JAG) for which authorization servers, as an enterprise identity
    /// provider. By default none may.
    public var identityAssertionPolicy = IdentityAssertionPolicy()
    /// The identity providers whose ID-JAGs the token endpoint accepts with
    /// the JWT bearer grant (RFC 7523), as a resource authorization server:
    /// their issuer identifiers, whose keys are discovered on first use.
    /// A grant is accepted from a confidential client whose registration
    /// lists ``GrantType/jwtBearer``, addressed to this provider alone, for
    /// that client, once (`jti`), living at most five minutes. Empty by
    /// default: the grant is not offered.
    public var trustedIdentityProviders: [String] = []
    /// The authentication context classes the provider can sign users in
    /// at (`acr_values_supported`). An authorization request whose
    /// `acr_values` names one of them (the first it names) gets that `acr`
    /// in its ID token and access tokens; every sign-in here is the same
    /// (the demo user's password), so this says what the tokens claim, to
    /// try a client's and an API's `acr` rules (RFC 9470). Empty by default:
    /// no `acr` is issued.
    public var acrValuesSupported: [String] = []

    /// Creates a configuration.
    public init(
        port: Int = 0, clients: [ProviderClient], users: [ProviderUser], lifetimes: TokenLifetimes = .init(),
        signingKeys: [SigningKey] = [], signIn: SignInMode = .loginPage, logger: Logger? = nil
    ) {
        self.port = port
        self.clients = clients
        self.users = users
        self.lifetimes = lifetimes
        self.signingKeys = signingKeys
        self.signIn = signIn
        self.logger =
            logger
            ?? {
                var logger = Logger.authFlow("Provider")
                logger.logLevel = .warning
                return logger
            }()
    }

    /// The demo: a public client `authflow-demo` (redirect
    /// `http://127.0.0.1/callback`, any port), a confidential client
    /// `authflow-demo-backend` (secret `demo-secret`, `client_secret_basic`)
    /// and the user `demo` (password `demo`), signed in automatically.
    public static var demo: ProviderConfiguration {
        ProviderConfiguration(
            clients: [DemoValues.publicClient, DemoValues.confidentialClient], users: [DemoValues.user],
            signIn: .automatic(subject: DemoValues.user.subject))
    }

    /// The client with `id`, if registered.
    func client(_ id: String) -> ProviderClient? { clients.first { $0.id == id } }

    /// The user with `subject`, if any.
    func user(subject: String) -> ProviderUser? { users.first { $0.subject == subject } }

    /// Checks the configuration before anything starts.
    func validate() throws {
        guard (0...65535).contains(port) else { throw ProviderConfigurationError("port must be 0…65535") }
        var ids = Set<String>()
        for client in clients {
            guard !client.id.isEmpty, ids.insert(client.id).inserted else {
                throw ProviderConfigurationError("client ids must be non-empty and unique (\(client.id))")
            }
            guard client.authentication.usesSecret == (client.secret != nil) else {
                throw ProviderConfigurationError(
                    "client \(client.id): a secret goes with client_secret_basic, client_secret_post or client_secret_jwt, and only then")
            }
            if client.authentication == .clientSecretJWT, let secret = client.secret,
                secret.utf8.count < ClientAuthentication.minimumHMACSecretBytes
            {
                throw ProviderConfigurationError(
                    "client \(client.id): a client_secret_jwt secret needs at least \(ClientAuthentication.minimumHMACSecretBytes) bytes (RFC 7518 §3.2)"
                )
            }
            if client.authentication == .privateKeyJWT {
                guard let jwks = client.jwks, let data = try? JSONEncoder().encode(jwks), let set = try? JSONWebKeySet(json: data),
                    !set.keys.isEmpty
                else {
                    throw ProviderConfigurationError("client \(client.id): private_key_jwt needs jwks with at least one usable public key")
                }
            }
            for uri in client.redirectURIs + client.postLogoutRedirectURIs {
                guard let url = URL(string: uri), url.scheme != nil, url.fragment == nil else {
                    throw ProviderConfigurationError("client \(client.id): \(uri) is not an absolute URI without a fragment")
                }
            }
            for grant in client.grantTypes where !GrantType.all.contains(grant) {
                throw ProviderConfigurationError("client \(client.id): unknown grant type \(grant)")
            }
            if client.grantTypes.contains(GrantType.jwtBearer), !client.isConfidential {
                throw ProviderConfigurationError(
                    "client \(client.id): the JWT bearer grant needs a confidential client (identity assertion grants, §9.1)")
            }
            if client.grantTypes.contains(GrantType.ciba), !client.isConfidential {
                throw ProviderConfigurationError("client \(client.id): the CIBA grant needs a confidential client (CIBA Core §7.1)")
            }
            if let endpoint = client.backchannelNotificationEndpoint {
                guard (try? URLPolicy.requireSecure(endpoint, "backchannel_client_notification_endpoint")) != nil else {
                    throw ProviderConfigurationError(
                        "client \(client.id): backchannel_client_notification_endpoint must be https, or http on a loopback host")
                }
            }
        }
        try clientIDMetadataDocuments.validate()
        try tokenExchangePolicy.validate(clients: clients)
        try identityAssertionPolicy.validate(clients: clients)
        var paths = Set<String>()
        for resource in protectedResources {
            try resource.validate()
            guard paths.insert(resource.path).inserted else {
                throw ProviderConfigurationError("protected resource paths must be unique (\(resource.path))")
            }
        }
        var subjects = Set<String>()
        var names = Set<String>()
        for user in users {
            guard !user.subject.isEmpty, subjects.insert(user.subject).inserted, names.insert(user.username).inserted else {
                throw ProviderConfigurationError("user subjects and usernames must be non-empty and unique (\(user.subject))")
            }
        }
        if case .automatic(let subject) = signIn, user(subject: subject) == nil {
            throw ProviderConfigurationError("automatic sign-in names the unknown user \(subject)")
        }
    }
}

/// A configuration the provider cannot start with.
public struct ProviderConfigurationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// The values of ``ProviderConfiguration/demo``.
package enum DemoValues {
    /// The public client of the demo.
    public static let publicClient = ProviderClient(
        id: "authflow-demo", redirectURIs: ["http://127.0.0.1/callback", "http://[::1]/callback"],
        grantTypes: [GrantType.authorizationCode, GrantType.refreshToken, GrantType.deviceCode])
    /// The confidential client of the demo.
    public static let confidentialClient = ProviderClient(
        id: "authflow-demo-backend", secret: "demo-secret", authentication: .clientSecretBasic,
        redirectURIs: ["http://127.0.0.1/callback"], grantTypes: Set(GrantType.all))
    /// The demo user.
    public static let user = ProviderUser(
        subject: "demo", password: "demo",
        claims: [
            "name": .string("Demo User"), "preferred_username": .string("demo"), "given_name": .string("Demo"),
            "family_name": .string("User"), "email": .string("demo@example.com"), "email_verified": .bool(true),
        ])
}
#endif
