#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension HTTPTransportRequest {
    /// What a request asks for, which decides how large its response may be
    /// (``ResponseLimits``) and how an oversized one is named in the error.
    public struct Purpose: Sendable, Hashable, CustomStringConvertible {
        /// A short name for errors and logs ("discovery document", "token response").
        public let description: String

        /// Creates a purpose; the built-in ones cover every request AuthFlow makes.
        public init(_ description: String) { self.description = description }

        /// Provider metadata (OpenID Discovery, RFC 8414).
        public static let discovery = Purpose("discovery document")
        /// A WebFinger answer (RFC 7033), read with the ``ResponseLimits/discovery`` limit.
        public static let webFinger = Purpose("WebFinger answer")
        /// A JWK Set (`jwks_uri`).
        public static let keySet = Purpose("JWK Set")
        /// A token endpoint answer (RFC 6749 §5): code, refresh, device polling.
        public static let token = Purpose("token response")
        /// A userinfo answer (OIDC Core §5.3), JSON or a signed JWT.
        public static let userInfo = Purpose("userinfo response")
        /// A device authorization answer (RFC 8628 §3.2).
        public static let deviceAuthorization = Purpose("device authorization response")
        /// A backchannel authentication answer (OpenID CIBA Core 1.0 §7.3),
        /// read with the ``ResponseLimits/deviceAuthorization`` limit.
        public static let backchannelAuthentication = Purpose("backchannel authentication response")
        /// A pushed authorization request answer (RFC 9126 §2.2).
        public static let pushedAuthorization = Purpose("pushed authorization response")
        /// A revocation answer (RFC 7009 §2.2).
        public static let revocation = Purpose("revocation response")
        /// A client registration answer (RFC 7591 §3.2), or a client ID
        /// metadata document.
        public static let registration = Purpose("client registration response")
        /// Anything else: a protected resource called through a session, a page.
        public static let resource = Purpose("response")
    }
}

/// The largest response body, in bytes, a transport accepts for each
/// ``HTTPTransportRequest/Purpose``, so that a hostile or broken server cannot make
/// the client buffer without bound.
///
/// ``URLSessionTransport`` enforces the limit while the body arrives: a
/// `Content-Length` above it is refused before any of the body is read, and a
/// body without one (or with one that lies) is cut off as soon as it passes
/// the limit. Either way the request fails with
/// ``AuthFlowError/Category/invalidResponse``, naming the endpoint and the limit.
///
/// The defaults are far above what real providers send (a discovery document
/// or a token response is a few kilobytes; a JWK Set with certificate chains
/// tens of kilobytes) and far below what would strain a phone's memory.
public struct ResponseLimits: Sendable, Equatable {
    /// Provider metadata and WebFinger answers. Default 1 MiB.
    public var discovery: Int = 1 << 20
    /// A JWK Set. Default 1 MiB.
    public var keySet: Int = 1 << 20
    /// Token responses (ID tokens with many claims included). Default 256 KiB.
    public var token: Int = 256 << 10
    /// Userinfo responses. Default 256 KiB.
    public var userInfo: Int = 256 << 10
    /// Device and backchannel authentication responses. Default 64 KiB.
    public var deviceAuthorization: Int = 64 << 10
    /// Pushed authorization responses. Default 64 KiB.
    public var pushedAuthorization: Int = 64 << 10
    /// Revocation responses (normally empty). Default 64 KiB.
    public var revocation: Int = 64 << 10
    /// Client registration responses and client ID metadata documents. Default 64 KiB.
    public var registration: Int = 64 << 10
    /// Any other response, such as a protected resource. Default 16 MiB.
    public var resource: Int = 16 << 20
    /// Any response whose status is not 2xx, whatever its purpose (an OAuth
    /// error is a few hundred bytes). Default 64 KiB.
    public var errorBody: Int = 64 << 10

    /// The defaults.
    public init() {}

    /// The limit for a successful response to a request of `purpose`.
    public subscript(purpose: HTTPTransportRequest.Purpose) -> Int {
        switch purpose {
        case .discovery, .webFinger: discovery
        case .keySet: keySet
        case .token: token
        case .userInfo: userInfo
        case .deviceAuthorization, .backchannelAuthentication: deviceAuthorization
        case .pushedAuthorization: pushedAuthorization
        case .revocation: revocation
        case .registration: registration
        default: resource
        }
    }

    /// The limit for `request` answered with `status`: the request's own
    /// ``HTTPTransportRequest/maxResponseBytes`` or its purpose's, and no more than
    /// ``errorBody`` when the status is not 2xx.
    public func limit(for request: HTTPTransportRequest, status: Int? = nil) -> Int {
        let own = max(request.maxResponseBytes ?? self[request.purpose], 0)
        guard let status, !(200..<300).contains(status) else { return own }
        return min(own, errorBody)
    }

    /// The error for a response over `limit` bytes.
    static func tooLarge(_ request: HTTPTransportRequest, limit: Int, announced: Int64? = nil) -> AuthFlowError {
        let size = announced.map { " (Content-Length \($0))" } ?? ""
        return AuthFlowError(
            .invalidResponse,
            "the \(request.purpose) from \(HTTPTransportRequest.endpointName(request.url)) is larger than \(byteCount(limit))\(size)",
            recovery: "check that the URL is the provider's endpoint; a larger limit can be set with ResponseLimits on the transport")
    }

    /// `limit` in the unit that reads best: "1 MiB", "64 KiB", "100 bytes".
    static func byteCount(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}

extension HTTPTransportRequest {
    /// An endpoint as errors name it: scheme, host, port and path; never the
    /// query, which may carry secrets.
    static func endpointName(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.host ?? "server" }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        return components.string ?? url.host ?? "server"
    }
}
