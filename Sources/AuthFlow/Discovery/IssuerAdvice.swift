import Foundation

/// What to tell a user whose issuer does not match the provider's metadata:
/// the fix, naming the flag and the issuer the document actually gives.
enum IssuerAdvice {
    /// For a multi-tenant template met without a tenant choice.
    static let multiTenant = """
        This issuer serves many tenants (its metadata names a {tenantid} template). \
        Say which are accepted: --tenant any, or --tenant ID[,ID] \
        (in code, OAuthClient(issuer:clientID:tenants:) or ProviderMetadata.issuerTenants).
        """

    /// For a plain mismatch between the issuer asked for and the one found.
    static func mismatch(asked: String, found: String) -> String {
        guard !found.isEmpty else { return "The provider's metadata names no issuer; check the --issuer URL." }
        if found == asked + "/" {
            return "The provider's issuer ends with a slash (as Auth0's do): use --issuer \(found)"
        }
        if asked == found + "/" {
            return "The provider's issuer has no trailing slash: use --issuer \(found)"
        }
        if let host = URL(string: asked)?.host, host.lowercased().hasSuffix("login.microsoftonline.com"),
            let segment = URL(string: asked)?.pathComponents.dropFirst().first, segment.contains(".")
        {
            return "Microsoft Entra ID names tenants by ID in issuers, not by domain name: use --issuer \(found)"
        }
        return "The provider's metadata names the issuer \(found): use --issuer \(found) if that is the provider you mean."
    }
}
