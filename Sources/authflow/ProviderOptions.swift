import AuthFlow
import ArgumentParser
import Foundation

/// `authflow login`'s provider flags beyond `--issuer` and the two required
/// endpoints: the tenants of a multi-tenant issuer.
struct ProviderOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Accept a multi-tenant issuer (a {tenantid} template, as Entra ID's common): any, or tenant IDs.",
                               valueName: "any|ID[,ID]"))
    var tenant: String?

    /// The parsed `--tenant`.
    func tenants() throws -> IssuerTenants? {
        try tenant.map { try IssuerTenants(parsing: $0) }
    }

    func validate(issuer: String?) throws {
        if tenant != nil, issuer == nil { throw ValidationError("--tenant applies to --issuer (a discovered multi-tenant issuer)") }
        do { _ = try tenants() } catch let error as AuthFlowError { throw ValidationError(error.recovery ?? error.message) }
    }
}
