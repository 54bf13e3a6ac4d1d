#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow discover ISSUER`: the provider's validated metadata.
struct Discover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch and check a provider's metadata.")

    @Argument(help: "The issuer URL.")
    var issuer: String
    @Flag(help: "Print the whole metadata document as JSON.")
    var json = false
    @Option(help: "Seconds the request may take.")
    var timeout: Double = 30
    @Option(help: ArgumentHelp("Accept a multi-tenant issuer template: any, or tenant IDs.", valueName: "any|ID[,ID]"))
    var tenant: String?
    @OptionGroup var verboseOption: VerboseOption

    func run() async throws {
        do {
            let issuer = try Issuer(commandLine: issuer, flag: "ISSUER")
            let tenants = try tenant.map { try IssuerTenants(parsing: $0) }
            let metadata = try await ProviderMetadata.discover(
                issuer: issuer, tenants: tenants, timeout: timeout, logger: verboseOption.makeLogger())
            if json {
                Output.json(metadata.document)
            } else {
                Output.stdout("issuer: \(TerminalText.field(metadata.issuer?.identifier ?? ""))")
                if let tenants = metadata.issuerTenants {
                    Output.stdout("tenants: \(tenants)")
                }
                for (name, endpoint) in metadata.endpointList { Output.stdout("\(name): \(endpoint.absoluteString)") }
                if let methods = metadata.codeChallengeMethodsSupported {
                    Output.stdout("code_challenge_methods_supported: \(TerminalText.field(methods.joined(separator: " ")))")
                }
                Output.stdout("authorization_response_iss_parameter_supported: \(metadata.authorizationResponseIssParameterSupported)")
            }
        } catch {
            throw Output.fail(error, json: json)
        }
    }
}
#endif
