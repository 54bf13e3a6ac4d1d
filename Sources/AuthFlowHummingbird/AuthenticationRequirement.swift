#if Hummingbird // the Hummingbird package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the user must have authenticated for a route (RFC 9470): with one of
/// the listed authentication context classes (the token's `acr`), and at
/// most so many seconds ago (its `auth_time`).
///
/// A token that falls short is refused with 401 and a challenge that says
/// what the route needs, which a client such as `AuthSession`
/// follows by signing the user in again once:
///
/// ```
/// WWW-Authenticate: Bearer error="insufficient_user_authentication",
///   error_description="…", acr_values="urn:example:mfa", max_age="300", resource_metadata="…"
/// ```
///
/// JWT access tokens carry `acr` and `auth_time` when the provider puts
/// them there (RFC 9068 §2.2.1); introspection answers when the provider
/// adds them. A token without the claim a requirement needs is refused.
public struct AuthenticationRequirement: Sendable, Equatable {
    /// The `acr` values accepted, most preferred first; empty: any.
    public let acrValues: [String]
    /// The most seconds since the user authenticated (`auth_time`); nil: any.
    public let maxAge: Int?

    /// A requirement of `acrValues` (any of them) and `maxAge` seconds.
    /// - Throws: `AuthFlowError` (`configuration`) for an
    ///   `acr` value that is empty or holds a space, `"` or `\`, a negative
    ///   age, or a requirement of nothing.
    public init(acrValues: [String] = [], maxAge: Int? = nil) throws {
        guard acrValues.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(AuthSession.isTokenByte) }) else {
            throw AuthFlowError(.configuration, "an acr value must be a non-empty token without spaces, quotes or backslashes")
        }
        guard maxAge.map({ $0 >= 0 }) ?? true else { throw AuthFlowError(.configuration, "max_age must not be negative") }
        guard !acrValues.isEmpty || maxAge != nil else {
            throw AuthFlowError(.configuration, "an authentication requirement needs acr values or a max_age")
        }
        self.acrValues = acrValues
        self.maxAge = maxAge
    }

    /// Why `claims` fall short at `now`, nil when they meet the requirement.
    func shortfall(of claims: AccessTokenClaims, now: Date) -> String? {
        if !acrValues.isEmpty {
            guard let acr = claims.string("acr") else { return "the access token does not say how the user authenticated (acr)" }
            guard acrValues.contains(acr) else { return "the user authenticated at a level this resource does not accept (acr)" }
        }
        if let maxAge {
            guard let authTime = claims.number("auth_time") else {
                return "the access token does not say when the user authenticated (auth_time)"
            }
            guard now.timeIntervalSince1970 - authTime <= Double(maxAge) else {
                return "the user authenticated too long ago for this resource (auth_time)"
            }
        }
        return nil
    }
}
#endif
