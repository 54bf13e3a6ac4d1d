#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The success object of `authflow demo --json`: the sign-in's outcome as
/// `login --json` reports it (no raw token, the nonce not shown) and the
/// steps with their durations.
struct DemoReport: Encodable {
    let issuer: String
    /// The protected API signed in to (`--resource`).
    let resource: String?
    let clientID: String
    let subject: String?
    let scope: String
    let expiresAt: Date?
    let tokenType: String
    let idTokenClaims: [String: JSONMemberValue]?
    /// The access token's `aud` (`--resource`: the API).
    let accessTokenAudience: JSONMemberValue?
    let userInfo: [String: JSONMemberValue]?
    /// What the API answered with the token (`--resource`).
    let apiResponse: [String: JSONMemberValue]?
    let steps: [StepPrinter.Step]
    let totalMilliseconds: Double

    init(
        issuer: Issuer, resource: String? = nil, clientID: String, credentials: OAuthCredentials, printer: StepPrinter,
        accessTokenAudience: JSONMemberValue? = nil, userInfo: OpenIDUserInfo? = nil, apiResponse: [String: JSONMemberValue]? = nil
    ) {
        self.issuer = issuer.identifier
        self.resource = resource
        self.clientID = clientID
        subject = credentials.subject
        scope = credentials.scopes.joined(separator: " ")
        expiresAt = credentials.expiresAt
        tokenType = credentials.token.tokenType
        idTokenClaims = credentials.idToken.map(Summary.printable)
        self.accessTokenAudience = accessTokenAudience
        self.userInfo = userInfo?.all
        self.apiResponse = apiResponse
        steps = printer.steps
        totalMilliseconds = (printer.total * 10).rounded() / 10
    }

    enum CodingKeys: String, CodingKey {
        case issuer, resource, subject, scope, steps
        case clientID = "client_id"
        case expiresAt = "expires_at"
        case tokenType = "token_type"
        case idTokenClaims = "id_token_claims"
        case accessTokenAudience = "access_token_audience"
        case userInfo = "userinfo"
        case apiResponse = "api_response"
        case totalMilliseconds = "total_ms"
    }
}
#endif
