#if EmbeddedProvider // the EmbeddedProvider package trait
public import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user who can sign in at the ``EmbeddedProvider``.
public struct ProviderUser: Sendable, Equatable {
    /// The stable `sub`.
    public var subject: String
    /// The name typed on the login page.
    public var username: String
    /// The password typed on the login page.
    public var password: String
    /// Claims released by scope: `profile` releases `name`,
    /// `preferred_username`, `given_name`, `family_name`, …; `email` releases
    /// `email` and `email_verified`. Claims of no standard scope are released
    /// with `profile`.
    public var claims: [String: JSONMemberValue]

    /// Creates a user.
    public init(subject: String, username: String? = nil, password: String, claims: [String: JSONMemberValue] = [:]) {
        self.subject = subject
        self.username = username ?? subject
        self.password = password
        self.claims = claims
    }

    /// The claims released for `scopes` (`sub` is always included).
    func claims(for scopes: Set<String>) -> [String: JSONMemberValue] {
        var released: [String: JSONMemberValue] = ["sub": .string(subject)]
        for (name, value) in claims where name != "sub" {
            let scope =
                ProviderUser.emailClaims.contains(name)
                ? "email"
                : ProviderUser.phoneClaims.contains(name)
                    ? "phone"
                    : name == "address" ? "address" : "profile"
            if scopes.contains(scope) { released[name] = value }
        }
        return released
    }

    private static let emailClaims: Set<String> = ["email", "email_verified"]
    private static let phoneClaims: Set<String> = ["phone_number", "phone_number_verified"]
}
#endif
