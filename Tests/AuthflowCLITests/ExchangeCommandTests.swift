#if CLI
import AuthFlow
import AuthFlowProvider
import ArgumentParser
import Foundation
import Testing
@testable import authflow

/// `authflow exchange` against the embedded provider on 127.0.0.1.
@Suite("Exchange command")
struct ExchangeCommandTests {
    static let backend = DemoValues.confidentialClient

    /// Runs `body` with a demo provider whose backend client may exchange
    /// for `billing`, and a saved profile `name` of that client holding a
    /// client-credentials access token.
    static func withProfile(_ name: String, _ body: (EmbeddedProvider, OAuthCredentials) async throws -> Void) async throws {
        _ = ProfileDPoPTests.configHome
        var configuration = ProviderConfiguration.demo
        configuration.tokenExchangePolicy = TokenExchangePolicy([.init(clientID: backend.id, audiences: ["billing"])])
        let provider = try await EmbeddedProvider.start(configuration)
        do {
            let client = try await OAuthClient(
                issuer: provider.issuer, clientID: backend.id, authentication: .clientSecretBasic(secret: backend.secret!))
            let credentials = try await client.clientCredentials()
            try Profile(
                name: name, metadata: client.metadata, clientID: backend.id, clientAuthentication: "client_secret_basic",
                clientSecret: backend.secret, clientSecretEnv: nil, scopes: [], parameters: [], port: 0, device: false,
                credentials: credentials
            ).save()
            try await body(provider, credentials)
            await provider.stop()
        } catch {
            await provider.stop()
            throw error
        }
    }

    @Test("exchange trades the profile's access token for a token for the audience, printed under the wire names")
    func exchange() async throws {
        try await Self.withProfile("exchange-ok") { _, credentials in
            let command = try Exchange.parse([
                "--profile", "exchange-ok", "--audience", "billing", "--requested-token-type", "access_token",
            ])
            let output = try await command.exchange()
            #expect(output.issuedTokenType == "urn:ietf:params:oauth:token-type:access_token")
            #expect(output.tokenType == "Bearer")
            #expect(output.accessToken != credentials.accessToken)
            #expect(try CompactJWS(output.accessToken).claims["aud"] == .string("billing"))
            let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(output)) as? [String: Any]
            #expect(Set(encoded?.keys.map { $0 } ?? []) == ["access_token", "issued_token_type", "token_type", "expires_in"])
            #expect(encoded?["access_token"] as? String == output.accessToken)
        }
    }

    @Test("an audience the provider's policy does not allow is the server's invalid_target")
    func refused() async throws {
        try await Self.withProfile("exchange-refused") { _, _ in
            let command = try Exchange.parse(["--profile", "exchange-refused", "--audience", "payroll"])
            let error = await #expect(throws: AuthFlowError.self) { try await command.exchange() }
            #expect(error?.oauth?.error == "invalid_target")
            #expect(error.map { Output.exitCode(for: $0.category) } == 3)
        }
    }

    @Test("a target is required; --requested-token-type takes a short name or a URI; --resource an absolute URL")
    func arguments() throws {
        #expect(throws: (any Error).self) { try Exchange.parse(["--profile", "p"]) }
        #expect(throws: (any Error).self) { try Exchange.parse(["--audience", "a", "--requested-token-type", "bogus"]) }
        #expect(throws: (any Error).self) { try Exchange.parse(["--resource", "not a url"]) }
        #expect(throws: (any Error).self) { try Exchange.parse(["--resource", "http://api.example.com/x"]) }
        #expect(Exchange.tokenType("id-jag") == .idJAG)
        #expect(Exchange.tokenType("id_token") == .idToken)
        #expect(Exchange.tokenType("urn:example:custom")?.rawValue == "urn:example:custom")
        #expect(Exchange.tokenType("token") == nil)
        let command = try Exchange.parse(["--resource", "https://API.example.com:443/billing", "--audience", "a", "--audience", "b"])
        #expect(command.audiences == ["a", "b"])
    }
}
#endif
