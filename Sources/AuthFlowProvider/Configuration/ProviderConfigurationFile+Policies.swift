#if EmbeddedProvider // the EmbeddedProvider package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The grant policies of a configuration file:
///
/// ```json
/// "token_exchange_policy": [{ "client_id": "backend", "audiences": ["billing"],
///                             "resources": ["https://billing.example/api"], "allows_delegation": false }],
/// "identity_assertion_policy": { "lifetime": 300,
///   "rules": [{ "client_id": "desktop-app", "authorization_server": "http://127.0.0.1:9001",
///               "client_id_at_authorization_server": "tools-client",
///               "resources": ["http://127.0.0.1:9100/mcp"], "scopes": ["tools:call"] }] },
/// "trusted_identity_providers": ["http://127.0.0.1:9000"]
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
extension ProviderConfigurationFile {
    struct ExchangeRule: Decodable, Sendable {
        let clientId: String
        let audiences: [String]?
        let resources: [String]?
        let allowsDelegation: Bool?

        enum CodingKeys: String, CodingKey {
            case audiences, resources
            case clientId = "client_id"
            case allowsDelegation = "allows_delegation"
        }
    }

    struct AssertionPolicy: Decodable, Sendable {
        struct Rule: Decodable, Sendable {
            let clientId: String
            let authorizationServer: String
            let clientIdAtAuthorizationServer: String
            let resources: [String]?
            let scopes: [String]?

            enum CodingKeys: String, CodingKey {
                case resources, scopes
                case clientId = "client_id"
                case authorizationServer = "authorization_server"
                case clientIdAtAuthorizationServer = "client_id_at_authorization_server"
            }
        }

        let lifetime: TimeInterval?
        let rules: [Rule]
    }

    /// The policies this file sets, over `configuration`.
    func applyPolicies(to configuration: inout ProviderConfiguration) {
        if let tokenExchangePolicy {
            configuration.tokenExchangePolicy = TokenExchangePolicy(
                tokenExchangePolicy.map {
                    .init(
                        clientID: $0.clientId, audiences: Set($0.audiences ?? []), resources: Set($0.resources ?? []),
                        allowsDelegation: $0.allowsDelegation ?? false)
                })
        }
        if let identityAssertionPolicy {
            configuration.identityAssertionPolicy = IdentityAssertionPolicy(
                identityAssertionPolicy.rules.map {
                    .init(
                        clientID: $0.clientId, authorizationServer: $0.authorizationServer,
                        clientIDAtAuthorizationServer: $0.clientIdAtAuthorizationServer, resources: Set($0.resources ?? []),
                        scopes: Set($0.scopes ?? []))
                }, lifetime: identityAssertionPolicy.lifetime ?? 300)
        }
        if let trustedIdentityProviders { configuration.trustedIdentityProviders = trustedIdentityProviders }
    }
}
#endif
