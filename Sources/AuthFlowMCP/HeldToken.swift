#if MCP // the MCP package trait
import AuthFlow
import Foundation

/// The access token the authorizer hands the transport, with the resource
/// it is for: read without waiting, because the swift-sdk asks for the
/// `Authorization` value synchronously before each request.
struct HeldToken: Sendable, Equatable {
    /// The protected resource (the MCP server) the token is for (RFC 8707).
    let resource: ResourceIdentifier
    /// The access token.
    let accessToken: String
    /// The token type, used as the scheme (`Bearer`).
    let tokenType: String

    init(resource: ResourceIdentifier, credentials: OAuthCredentials) {
        self.resource = resource
        accessToken = credentials.accessToken
        tokenType = credentials.token.tokenType
    }

    /// The `Authorization` value for a request to `endpoint`; nil for any
    /// origin but the resource's, so the token never leaves for another server.
    func authorization(for endpoint: URL) -> String? {
        guard resource.permitsRequest(to: endpoint) else { return nil }
        let scheme = tokenType.caseInsensitiveCompare("Bearer") == .orderedSame ? "Bearer" : tokenType
        return "\(scheme) \(accessToken)"
    }
}
#endif
