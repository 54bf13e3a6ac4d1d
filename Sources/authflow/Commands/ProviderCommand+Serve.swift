#if CLI // the CLI package trait
import AuthFlow
import AuthFlowProvider
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ProviderCommand {
    /// `authflow provider serve`.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the embedded OpenID Provider on 127.0.0.1 until SIGINT or SIGTERM.",
            discussion: "Without --config it serves the demo configuration. The config file format is described in docs/cli.md.")

        @Option(help: "The port on 127.0.0.1 (0: any free port; overrides the config file).")
        var port: Int?
        @Option(help: "A JSON configuration file (clients, users, lifetimes, keys, resources, registration).")
        var config: String?
        @Option(
            help: ArgumentHelp(
                "Also serve a demo protected resource (an API) at this path, or at this URL on the provider's own listener (replaces the config file's protected_resources).",
                valueName: "URL|PATH"))
        var resource: String?
        @Option(
            name: .customLong("resource-scope"),
            help: ArgumentHelp("A scope the demo resource requires (repeatable; default api.read).", valueName: "SCOPE"))
        var resourceScopes: [String] = []
        @Flag(
            name: .customLong("allow-http-client-metadata"),
            help: "Accept client ID metadata documents at http URLs on loopback hosts too (for tests).")
        var allowHTTPClientMetadata = false
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
            if allowHTTPClientMetadata { configuration.clientIDMetadataDocuments.allowsLoopbackHTTP = true }
            if let resource {
                do {
                    let path = try Self.resourcePath(resource, port: configuration.port)
                    configuration.protectedResources = [
                        ProviderProtectedResource(path: path, requiredScopes: resourceScopes.isEmpty ? ["api.read"] : resourceScopes)
                    ]
                } catch {
                    Output.stderr("error: \(error)")
                    throw ExitCode(2)
                }
            } else if !resourceScopes.isEmpty {
                Output.stderr("error: --resource-scope goes with --resource")
                throw ExitCode(2)
            }
            let provider: EmbeddedProvider
            do {
                provider = try await EmbeddedProvider.start(configuration)
            } catch {
                Output.stderr("error: \(error)")
                throw ExitCode(1)
            }
            Output.stdout("issuer: \(provider.issuer.identifier)")
            Output.stdout("discovery: \(provider.issuer.identifier)/.well-known/openid-configuration")
            Output.stdout("backchannel approvals (CIBA): \(provider.issuer.identifier)/ciba")
            for client in configuration.clients { Output.stdout(client.listing) }
            for user in configuration.users { Output.stdout("user: \(user.username) password=\(user.password) sub=\(user.subject)") }
            for resource in configuration.protectedResources {
                Output.stdout(
                    "resource: \(provider.identifier(of: resource).absoluteString) (requires scope \(resource.requiredScopes.joined(separator: " ")))"
                )
                Output.stdout("resource metadata: \(provider.issuer.identifier)\(resource.metadataPathForListing)")
            }
            if configuration.allowsDynamicRegistration {
                Output.stdout(
                    "registration: \(provider.issuer.identifier)/register (kill -USR1 \(ProcessInfo.processInfo.processIdentifier) forgets registrations)"
                )
            }
            switch configuration.signIn {
            case .automatic(let subject): Output.stdout("sign-in: automatic as \(subject)")
            case .loginPage: Output.stdout("sign-in: login page")
            }
            Output.stdout("ready (Ctrl-C to stop)")
            await provider.runUntilTerminated()
            Output.stderr("provider stopped")
        }

        /// The path of `--resource`: a path as given, or the path of a URL on
        /// the provider's own listener (`http://127.0.0.1:PORT/…`, the port
        /// that of `--port` or the config file).
        static func resourcePath(_ value: String, port: Int) throws -> String {
            do {
                return try ProviderProtectedResource.path(of: value, port: port, name: "--resource", portSource: "--port")
            } catch let error as ProviderConfigurationError {
                throw ValidationError(error.description)
            }
        }
    }
}
#endif
