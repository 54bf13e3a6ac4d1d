#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
import Foundation

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
            guard let url = URL(string: issuer), url.scheme != nil else {
                throw AuthFlowError(
                    .configuration, "the issuer is not a URL",
                    recovery: "Give the issuer as a full https URL, such as https://accounts.google.com.")
            }
            let tenants = try tenant.map { try IssuerTenants(parsing: $0) }
            let metadata = try await ProviderMetadata.discover(
                issuer: url, tenants: tenants, timeout: timeout, logger: verboseOption.makeLogger())
            if json {
                Output.json(metadata.document)
            } else {
                Output.stdout("issuer: \(TerminalText.field(metadata.issuer ?? ""))")
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

/// `authflow decode JWT`: header and claims, clearly unverified.
struct Decode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a JWT's header and claims WITHOUT verifying it.")

    @Argument(help: "The JWT (compact serialization).")
    var jwt: String

    struct Decoded: Encodable {
        let verified = false
        let warning = "UNVERIFIED: the signature and claims were not checked"
        let header: [String: JSONMemberValue]
        let claims: [String: JSONMemberValue]
    }

    func run() async throws {
        do {
            let jws = try CompactJWS(jwt.trimmingCharacters(in: .whitespacesAndNewlines))
            Output.json(Decoded(header: jws.header, claims: jws.claims))
        } catch {
            throw Output.fail(error, json: true)
        }
    }
}
#endif
