#if CLI // the CLI package trait
import AuthFlowProvider
import ArgumentParser
import Foundation

extension ProviderCommand {
    /// `authflow provider serve`.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the embedded OpenID Provider on 127.0.0.1 until SIGINT or SIGTERM.",
            discussion: "Without --config it serves the demo configuration. The config file format is described in docs/cli.md.")

        @Option(help: "The port on 127.0.0.1 (0: any free port; overrides the config file).")
        var port: Int?
        @Option(help: "A JSON configuration file (clients, users, lifetimes, keys).")
        var config: String?
        @OptionGroup var verboseOption: VerboseOption

        func run() async throws {
            guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) else {
                Output.stderr("error: the embedded provider needs macOS 14 or later")
                throw ExitCode(1)
            }
            var configuration: ProviderConfiguration
            do {
                configuration = try config.map { try ProviderConfigurationFile.load(URL(fileURLWithPath: $0)) } ?? .demo
            } catch {
                Output.stderr("error: \(error)")
                throw ExitCode(2)
            }
            if let port { configuration.port = port }
            configuration.logger = verboseOption.makeLogger()
            let provider: EmbeddedProvider
            do {
                provider = try await EmbeddedProvider.start(configuration)
            } catch {
                Output.stderr("error: \(error)")
                throw ExitCode(1)
            }
            Output.stdout("issuer: \(provider.issuer.absoluteString)")
            Output.stdout("discovery: \(provider.issuer.absoluteString)/.well-known/openid-configuration")
            for client in configuration.clients { Output.stdout(client.listing) }
            for user in configuration.users { Output.stdout("user: \(user.username) password=\(user.password) sub=\(user.subject)") }
            switch configuration.signIn {
            case .automatic(let subject): Output.stdout("sign-in: automatic as \(subject)")
            case .loginPage: Output.stdout("sign-in: login page")
            }
            Output.stdout("ready (Ctrl-C to stop)")
            await provider.runUntilTerminated()
            Output.stderr("provider stopped")
        }
    }
}
#endif
