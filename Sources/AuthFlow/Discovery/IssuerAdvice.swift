#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What to tell a user whose issuer does not match the provider's metadata:
/// why, the fix in API terms, and the fix as a remedy naming the issuer the
/// document actually gives.
enum IssuerAdvice {
    /// For a multi-tenant template met without a tenant choice (remedy
    /// ``AuthFlowError/Remedy/chooseTenants``).
    static let multiTenant = """
        This issuer serves many tenants (its metadata names a {tenantid} template). \
        Say which are accepted: OAuthClient(issuer:clientID:tenants:) or ProviderMetadata.issuerTenants \
        (IssuerTenants.any, or IssuerTenants.only with the tenant IDs).
        """

    /// For a plain mismatch between the issuer asked for and the one found:
    /// why they differ, when that is known, and the fix.
    static func mismatch(asked: String, found: String) -> (why: String?, recovery: String, remedy: AuthFlowError.Remedy) {
        guard !found.isEmpty else {
            return ("the provider's metadata names no issuer", "Check the issuer URL.", .checkTheIssuer)
        }
        let fix = "Use the issuer \(found) if that is the provider you mean."
        if found == asked + "/" {
            return ("the provider's issuer ends with a slash (as Auth0's do)", fix, .useIssuer.with(found))
        }
        if asked == found + "/" {
            return ("the provider's issuer has no trailing slash", fix, .useIssuer.with(found))
        }
        if let host = URL(string: asked)?.host, host.lowercased().hasSuffix("login.microsoftonline.com"),
            let segment = URL(string: asked)?.pathComponents.dropFirst().first, segment.contains(".")
        {
            return ("Microsoft Entra ID names tenants by ID in issuers, not by domain name", fix, .useIssuer.with(found))
        }
        return (nil, fix, .useIssuer.with(found))
    }
}
