#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The metadata a client registers itself with: OAuth 2.0 Dynamic Client
/// Registration, RFC 7591 §2, with OpenID Connect Dynamic Client
/// Registration's `application_type`.
///
/// The defaults are those of a native app or a command-line tool: no client
/// secret (`token_endpoint_auth_method` `none`), the authorization code and
/// refresh token grants, `application_type` `native`. Loopback redirect URIs
/// (`http://127.0.0.1/callback`) are registered without a port: RFC 8252 §7.3
/// lets the app choose the port each time.
public struct ClientRegistrationRequest: Sendable, Equatable {
    /// `application_type`: `native` for apps on a device and the CLI, `web` for servers.
    public struct ApplicationType: RawRepresentable, Sendable, Hashable {
        /// The value sent.
        public let rawValue: String
        /// A value by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// An app on a device or a command-line tool (redirects to loopback or a private-use scheme).
        public static let native = ApplicationType(rawValue: "native")
        /// A server (https redirects).
        public static let web = ApplicationType(rawValue: "web")
    }

    /// `redirect_uris`.
    public var redirectURIs: [URL]
    /// `client_name`, shown to the user on the consent page.
    public var clientName: String?
    /// `application_type`.
    public var applicationType: ApplicationType
    /// `grant_types`.
    public var grantTypes: [String]
    /// `response_types`.
    public var responseTypes: [String]
    /// `token_endpoint_auth_method`.
    public var tokenEndpointAuthMethod: String
    /// `scope`: the scopes the client may ask for, when the server wants them named.
    public var scopes: [String]
    /// `software_id` and `software_version`: the same for every install of the app.
    public var softwareID: String?
    /// `software_version`.
    public var softwareVersion: String?
    /// `client_uri`: a page about the client.
    public var clientURI: URL?
    /// `dpop_bound_access_tokens` (RFC 9449 §5.2): the client always binds its tokens.
    public var dpopBoundAccessTokens: Bool?

    /// Metadata for a native client (see the type's description).
    public init(
        redirectURIs: [URL], clientName: String? = nil, applicationType: ApplicationType = .native,
        grantTypes: [String] = ["authorization_code", "refresh_token"], responseTypes: [String] = ["code"],
        tokenEndpointAuthMethod: String = "none", scopes: [String] = [], softwareID: String? = nil, softwareVersion: String? = nil,
        clientURI: URL? = nil, dpopBoundAccessTokens: Bool? = nil
    ) {
        self.redirectURIs = redirectURIs
        self.clientName = clientName
        self.applicationType = applicationType
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.scopes = scopes
        self.softwareID = softwareID
        self.softwareVersion = softwareVersion
        self.clientURI = clientURI
        self.dpopBoundAccessTokens = dpopBoundAccessTokens
    }

    /// The JSON object sent.
    var members: [String: JSONMemberValue] {
        var object: [String: JSONMemberValue] = [
            "redirect_uris": .array(redirectURIs.map { .string($0.absoluteString) }),
            "application_type": .string(applicationType.rawValue),
            "grant_types": .array(grantTypes.map { .string($0) }),
            "response_types": .array(responseTypes.map { .string($0) }),
            "token_endpoint_auth_method": .string(tokenEndpointAuthMethod),
        ]
        if let clientName { object["client_name"] = .string(clientName) }
        if !scopes.isEmpty { object["scope"] = .string(scopes.joined(separator: " ")) }
        if let softwareID { object["software_id"] = .string(softwareID) }
        if let softwareVersion { object["software_version"] = .string(softwareVersion) }
        if let clientURI { object["client_uri"] = .string(clientURI.absoluteString) }
        if let dpopBoundAccessTokens { object["dpop_bound_access_tokens"] = .bool(dpopBoundAccessTokens) }
        return object
    }

    /// Refuses metadata no server should be sent: no redirect URI, or one
    /// that RFC 8252 does not allow a native client.
    func validate() throws {
        guard !redirectURIs.isEmpty else {
            throw AuthFlowError.configuration("a client registration needs at least one redirect URI")
        }
        if applicationType == .native {
            for uri in redirectURIs { try RedirectURIPolicy.validate(uri) }
        }
    }
}
