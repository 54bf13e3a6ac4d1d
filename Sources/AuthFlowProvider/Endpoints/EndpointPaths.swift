#if EmbeddedProvider // the EmbeddedProvider package trait
/// Where each endpoint lives, relative to the issuer.
enum EndpointPaths {
    static let openIDConfiguration = "/.well-known/openid-configuration"
    static let authorizationServerMetadata = "/.well-known/oauth-authorization-server"
    static let jwks = "/jwks"
    static let authorize = "/authorize"
    static let token = "/token"
    static let userinfo = "/userinfo"
    static let revoke = "/revoke"
    static let introspect = "/introspect"
    static let endSession = "/end-session"
    static let deviceAuthorization = "/device_authorization"
    static let device = "/device"
    static let pushedAuthorization = "/par"
    /// The backchannel authentication endpoint (OpenID CIBA Core 1.0 §7).
    static let backchannelAuthentication = "/bc-authorize"
    /// Where the user approves or denies backchannel requests: the page the
    /// "authentication device" opens.
    static let backchannelApproval = "/ciba"
    /// Dynamic client registration (RFC 7591).
    static let registration = "/register"
}
#endif
