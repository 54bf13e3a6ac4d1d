#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthSession {
    /// What a resource asked for when it refused a token, and what a step-up
    /// sign-in should therefore ask the provider for: more scopes
    /// (`insufficient_scope`, RFC 6750 §3.1) or another authentication of
    /// the user (`insufficient_user_authentication`, RFC 9470).
    public struct StepUpDemand: Sendable, Equatable {
        /// Why the resource refused: `insufficient_scope` or
        /// `insufficient_user_authentication`.
        public var error: String
        /// Every scope to ask for: those granted so far, then those the
        /// resource requires (the granted ones alone for an authentication
        /// demand).
        public var scopes: [String]
        /// The authentication context classes the resource accepts, most
        /// preferred first (RFC 9470 `acr_values`); empty when it named none.
        public var acrValues: [String]
        /// How many seconds ago the user may have authenticated at most
        /// (RFC 9470 `max_age`), when the resource said.
        public var maxAge: Int?

        /// Creates a demand.
        public init(error: String, scopes: [String], acrValues: [String] = [], maxAge: Int? = nil) {
            self.error = error
            self.scopes = scopes
            self.acrValues = acrValues
            self.maxAge = maxAge
        }

        /// `options` with what the demand asks of the sign-in: its
        /// `acr_values` (and ``AuthorizationOptions/checksACRValues``, so an
        /// ID token naming another `acr` is refused), and its `max_age`
        /// (the smaller, when `options` has one), which makes the provider
        /// authenticate the user again and the ID token's `auth_time` checked.
        public func options(_ options: AuthorizationOptions = AuthorizationOptions()) -> AuthorizationOptions {
            var options = options
            if !acrValues.isEmpty {
                options.acrValues = acrValues
                options.checksACRValues = true
            }
            if let maxAge { options.maxAge = min(options.maxAge ?? maxAge, maxAge) }
            return options
        }
    }

    /// The most `acr_values` a resource's `insufficient_user_authentication`
    /// challenge may name; more is ``AuthFlowError/Category/invalidResponse``.
    public static let maximumStepUpACRValues = 16

    /// The authentication a 401 `insufficient_user_authentication`
    /// challenge asks for (RFC 9470 §3), nil for any other answer and for a
    /// challenge that names neither `acr_values` nor `max_age` (there is
    /// nothing to ask the provider for).
    package static func requiredAuthentication(in response: HTTPTransportResponse) throws -> (acrValues: [String], maxAge: Int?)? {
        guard response.status == 401, let challenge = ResourceChallenge(response), challenge.isInsufficientUserAuthentication
        else { return nil }
        let acrValues = challenge.acrValues ?? []
        guard !acrValues.isEmpty || challenge.maxAge != nil else { return nil }
        guard acrValues.count <= maximumStepUpACRValues else {
            throw AuthFlowError.invalidResponse(
                "the resource's insufficient_user_authentication challenge names more than \(maximumStepUpACRValues) acr values")
        }
        guard acrValues.allSatisfy({ $0.utf8.allSatisfy(isTokenByte) }) else {
            throw AuthFlowError.invalidResponse(
                "the resource's insufficient_user_authentication challenge names an acr value that is not a token")
        }
        return (acrValues, challenge.maxAge)
    }

    /// The bytes of a scope token (RFC 6749 §3.3 `NQCHAR`), also those of an
    /// `acr` value here. Shared with AuthFlowHummingbird's `AuthenticationRequirement`.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
    }

    /// What an authentication demand asks for, as messages say it:
    /// `acr_values a b, max_age 300` (each part only when given). Shared with the CLI.
    package static func authenticationAsked(acrValues: [String], maxAge: Int?) -> String {
        var asked = acrValues.isEmpty ? [] : ["acr_values \(acrValues.joined(separator: " "))"]
        if let maxAge { asked.append("max_age \(maxAge)") }
        return asked.joined(separator: ", ")
    }

    /// The error of an authentication step-up that did not satisfy the resource.
    package static func insufficientUserAuthentication(_ acrValues: [String], maxAge: Int?, _ why: String) -> AuthFlowError {
        let asked = authenticationAsked(acrValues: acrValues, maxAge: maxAge)
        return AuthFlowError(
            .oauthError, "\(why): \(asked)",
            oauth: OAuthErrorResponse(error: "insufficient_user_authentication", errorDescription: "needs \(asked)"),
            recovery: "The provider did not authenticate the user as the resource requires; "
                + "ask its administrator which authentication it accepts.")
    }
}
