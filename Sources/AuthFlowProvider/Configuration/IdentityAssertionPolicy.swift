#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Which clients may get Identity Assertion JWT Authorization Grants
/// (ID-JAG, draft-ietf-oauth-identity-assertion-authz-grant §4) from an
/// ``EmbeddedProvider`` playing an enterprise identity provider, for which
/// authorization servers and resources.
///
/// A client asks by token exchange, with `requested_token_type`
/// `urn:ietf:params:oauth:token-type:id-jag`, the user's ID token from this
/// provider as `subject_token`, the authorization server's issuer as
/// `audience` and, optionally, a `resource` of it; its registration must list
/// ``GrantType/tokenExchange``. Anything no ``Rule`` allows is refused with
/// `invalid_target` (another server or resource) or `invalid_scope`. The
/// default policy has no rules: no client gets any.
///
/// ```swift
/// configuration.identityAssertionPolicy = IdentityAssertionPolicy([
///     .init(clientID: "desktop-app", authorizationServer: "https://auth.tools.example.com",
///           clientIDAtAuthorizationServer: "tools-client", resources: ["https://tools.example.com/mcp"],
///           scopes: ["tools:call"])
/// ])
/// ```
public struct IdentityAssertionPolicy: Sendable, Equatable {
    /// What one client may get grants for at one authorization server.
    public struct Rule: Sendable, Equatable {
        /// The client at this provider.
        public var clientID: String
        /// The issuer identifier of the authorization server (the grant's `aud`).
        public var authorizationServer: String
        /// The client's ID at that authorization server (the grant's `client_id`).
        public var clientIDAtAuthorizationServer: String
        /// The resources of that server a grant may name (compared exactly);
        /// empty: a grant names none.
        public var resources: Set<String>
        /// The scopes a grant may carry.
        public var scopes: Set<String>

        /// Creates a rule.
        public init(
            clientID: String, authorizationServer: String, clientIDAtAuthorizationServer: String, resources: Set<String> = [],
            scopes: Set<String> = []
        ) {
            self.clientID = clientID
            self.authorizationServer = authorizationServer
            self.clientIDAtAuthorizationServer = clientIDAtAuthorizationServer
            self.resources = resources
            self.scopes = scopes
        }
    }

    /// The rules, at most one per client and authorization server.
    public var rules: [Rule]
    /// How long a grant lives; never past the ID token's `exp`. AuthFlow's
    /// clients and authorization servers refuse a grant that lives longer
    /// than five minutes (`IdentityAssertion.defaultMaximumLifetime`):
    /// a longer lifetime (up to an hour) is for trying how a server answers one.
    public var lifetime: TimeInterval

    /// A policy with `rules`.
    public init(_ rules: [Rule] = [], lifetime: TimeInterval = 300) {
        self.rules = rules
        self.lifetime = lifetime
    }

    /// The rule of `clientID` for `authorizationServer`, if it has one.
    func rule(for clientID: String, authorizationServer: String) -> Rule? {
        rules.first { $0.clientID.hasSameBytes(as: clientID) && $0.authorizationServer.hasSameBytes(as: authorizationServer) }
    }

    /// Each rule names a configured client that may use token exchange, once per server; the lifetime is positive.
    func validate(clients: [ProviderClient]) throws {
        guard lifetime > 0, lifetime <= 3600 else {
            throw ProviderConfigurationError("identity assertion policy: the lifetime must be between 1 and 3600 seconds")
        }
        var seen = Set<[String]>()
        for rule in rules {
            guard seen.insert([rule.clientID, rule.authorizationServer]).inserted else {
                throw ProviderConfigurationError(
                    "identity assertion policy: more than one rule for client \(rule.clientID) and \(rule.authorizationServer)")
            }
            guard let client = clients.first(where: { $0.id == rule.clientID }), client.grantTypes.contains(GrantType.tokenExchange) else {
                throw ProviderConfigurationError(
                    "identity assertion policy: client \(rule.clientID) is not configured with the grant type \(GrantType.tokenExchange)")
            }
        }
    }
}
#endif
