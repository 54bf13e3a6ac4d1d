#if EmbeddedProvider // the EmbeddedProvider package trait
/// Which clients may exchange tokens (RFC 8693) at an ``EmbeddedProvider``,
/// and for which targets.
///
/// A client may exchange a token only when it has a ``Rule`` here and its
/// registration lists the grant type ``GrantType/tokenExchange``. The token
/// it asks for must name exactly one target, an `audience` or a `resource`,
/// that its rule lists; anything else is refused with `invalid_target`. The
/// default policy has no rules: no client may exchange anything.
///
/// ```swift
/// var configuration = ProviderConfiguration.demo
/// configuration.tokenExchangePolicy = TokenExchangePolicy([
///     .init(clientID: "authflow-demo-backend", resources: ["https://billing.example.com"])
/// ])
/// ```
public struct TokenExchangePolicy: Sendable, Equatable {
    /// What one client may exchange tokens for.
    public struct Rule: Sendable, Equatable {
        /// The client the rule is for.
        public var clientID: String
        /// The `audience` values (logical names) it may ask for.
        public var audiences: Set<String>
        /// The `resource` URIs (RFC 8707) it may ask for, compared exactly.
        public var resources: Set<String>
        /// Whether it may present an `actor_token` (delegation): the issued
        /// token then names the actor in its `act` claim (RFC 8693 §4.1).
        public var allowsDelegation: Bool

        /// Creates a rule.
        public init(clientID: String, audiences: Set<String> = [], resources: Set<String> = [], allowsDelegation: Bool = false) {
            self.clientID = clientID
            self.audiences = audiences
            self.resources = resources
            self.allowsDelegation = allowsDelegation
        }
    }

    /// The rules, at most one per client.
    public var rules: [Rule]

    /// A policy with `rules`.
    public init(_ rules: [Rule] = []) {
        self.rules = rules
    }

    /// The rule of `clientID`, if it has one.
    func rule(for clientID: String) -> Rule? { rules.first { $0.clientID == clientID } }

    /// Each rule names a configured client, once, that may use the grant.
    func validate(clients: [ProviderClient]) throws {
        var seen = Set<String>()
        for rule in rules {
            guard seen.insert(rule.clientID).inserted else {
                throw ProviderConfigurationError("token exchange policy: more than one rule for client \(rule.clientID)")
            }
            guard let client = clients.first(where: { $0.id == rule.clientID }), client.grantTypes.contains(GrantType.tokenExchange) else {
                throw ProviderConfigurationError(
                    "token exchange policy: client \(rule.clientID) is not configured with the grant type \(GrantType.tokenExchange)")
            }
        }
    }
}
#endif
