#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
import AuthFlowTestSupport
import AuthFlowProvider
import Foundation

/// Providers for the tests: keys generated once (RSA generation is the slow
/// part of a start), demo clients plus a few special ones.
enum Fixture {
    static let keys: [SigningKey] = [
        try! SigningKey.generate(.rs256, keyID: "test-rs256"), try! SigningKey.generate(.es256, keyID: "test-es256"),
    ]

    /// A confidential client whose id and secret need form-encoding.
    static let oddID = "odd+id/=%"
    static let oddSecret = "s3cret+/= %x"
    static let backend = DemoValues.confidentialClient

    static func configuration(signIn: SignInMode = .automatic(subject: "demo"), lifetimes: TokenLifetimes? = nil) -> ProviderConfiguration {
        var configuration = ProviderConfiguration.demo
        configuration.signingKeys = keys
        configuration.signIn = signIn
        configuration.lifetimes = lifetimes ?? TokenLifetimes(devicePollingInterval: 0.2, deviceSlowDownIncrement: 0.2)
        configuration.clients += [
            ProviderClient(
                id: oddID, secret: oddSecret, authentication: .clientSecretBasic, redirectURIs: ["http://127.0.0.1/callback"],
                grantTypes: Set(GrantType.all)),
            ProviderClient(
                id: "post-client", secret: "post-secret", authentication: .clientSecretPost,
                redirectURIs: ["https://app.example.com/cb?x=1"], postLogoutRedirectURIs: ["https://app.example.com/bye"]),
            ProviderClient(id: "es-client", redirectURIs: ["http://127.0.0.1/callback"], idTokenSigningAlgorithm: .es256),
        ]
        return configuration
    }

    static func start(signIn: SignInMode = .automatic(subject: "demo"), lifetimes: TokenLifetimes? = nil) async throws -> EmbeddedProvider {
        try await EmbeddedProvider.start(configuration(signIn: signIn, lifetimes: lifetimes))
    }

    /// Runs `body` with a started provider and stops it afterwards.
    static func with<T>(
        signIn: SignInMode = .automatic(subject: "demo"), lifetimes: TokenLifetimes? = nil,
        _ body: (EmbeddedProvider) async throws -> T
    ) async throws -> T {
        try await with(configuration(signIn: signIn, lifetimes: lifetimes), body)
    }

    /// Runs `body` with a provider started from `configuration` and stops it afterwards.
    static func with<T>(_ configuration: ProviderConfiguration, _ body: (EmbeddedProvider) async throws -> T) async throws -> T {
        let provider = try await EmbeddedProvider.start(configuration)
        do {
            let value = try await body(provider)
            await provider.stop()
            return value
        } catch {
            await provider.stop()
            throw error
        }
    }
}
#endif
