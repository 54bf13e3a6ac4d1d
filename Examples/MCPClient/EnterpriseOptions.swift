#if MCP // the MCP package trait
import AuthFlow
import Foundation

/// The enterprise mode's command line (MCP's enterprise-managed
/// authorization, SEP-990): the company's identity provider, this app's
/// client there and the file the user's session there is kept in; the MCP
/// server's authorization server and this app's client there. Both come
/// from the configuration, never from the MCP server. Secrets come from
/// environment variables the command line names, never from the command
/// line itself.
struct EnterpriseOptions {
    /// The identity provider's issuer (`--idp`).
    var identityProvider: Issuer
    /// This app's client ID at the identity provider (`--idp-client-id`).
    var identityProviderClientID: String
    /// The client's secret at the identity provider (HTTP Basic), from the
    /// variable `--idp-client-secret-env` names; nil for a public client.
    var identityProviderSecret: String?
    /// The file the session at the identity provider is kept in (`--idp-store`).
    var identityProviderStore: URL
    /// The MCP server's authorization server (`--authorization-server`).
    var authorizationServer: Issuer
    /// This app's client ID at the authorization server (`--client-id`).
    var clientID: String
    /// The client's secret at the authorization server, from the variable
    /// `--client-secret-env` names.
    var clientSecret: String

    /// The enterprise mode's flags, as the command line gives them.
    struct Builder {
        static let flags: Set<String> = [
            "--idp", "--idp-client-id", "--idp-client-secret-env", "--idp-store", "--authorization-server", "--client-id",
            "--client-secret-env",
        ]

        private var values: [String: String] = [:]

        mutating func set(_ flag: String, _ value: String) throws {
            guard values[flag] == nil else { throw ExampleOptions.UsageError(message: "\(flag) is given twice") }
            values[flag] = value
        }

        /// The options, or nil when no flag of the enterprise mode was given.
        func build(environment: [String: String]) throws -> EnterpriseOptions? {
            guard !values.isEmpty else { return nil }
            // In the order of the usage line, so the first thing missing is named first.
            let identityProvider = try issuer("--idp")
            let identityProviderClientID = try required("--idp-client-id")
            let identityProviderSecret = try secret("--idp-client-secret-env", environment)
            let identityProviderStore = URL(fileURLWithPath: try required("--idp-store"))
            let authorizationServer = try issuer("--authorization-server")
            let clientID = try required("--client-id")
            guard let clientSecret = try secret("--client-secret-env", environment) else { throw missing("--client-secret-env") }
            return EnterpriseOptions(
                identityProvider: identityProvider, identityProviderClientID: identityProviderClientID,
                identityProviderSecret: identityProviderSecret, identityProviderStore: identityProviderStore,
                authorizationServer: authorizationServer, clientID: clientID, clientSecret: clientSecret)
        }

        private func required(_ flag: String) throws -> String {
            guard let value = values[flag], !value.isEmpty else { throw missing(flag) }
            return value
        }

        private func issuer(_ flag: String) throws -> Issuer {
            let text = try required(flag)
            guard let issuer = try? Issuer(text) else {
                throw ExampleOptions.UsageError(message: "\(flag) needs an issuer URL, such as https://id.example.com")
            }
            return issuer
        }

        /// The secret in the environment variable that `flag` names; nil when the flag is not given.
        private func secret(_ flag: String, _ environment: [String: String]) throws -> String? {
            guard let name = values[flag] else { return nil }
            guard let secret = environment[name], !secret.isEmpty else {
                throw ExampleOptions.UsageError(message: "the environment variable \(name) that \(flag) names is not set")
            }
            return secret
        }

        private func missing(_ flag: String) -> ExampleOptions.UsageError {
            ExampleOptions.UsageError(message: "\(flag) is missing: the enterprise mode needs it")
        }
    }
}
#endif
