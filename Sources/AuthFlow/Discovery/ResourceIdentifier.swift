#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The identifier of a protected resource (an API): the URL a token is for.
///
/// RFC 8707 §2 sends it as the `resource` parameter of the authorization,
/// token and refresh requests, and RFC 9728 §2 names it in the resource's
/// metadata. Its canonical form, which AuthFlow sends and compares, has a
/// lower-case scheme and host, no default port (443 for https, 80 for http),
/// no fragment, and no lone trailing `/` after the host. The path and query
/// are kept as given: `https://api.example.com/mcp` and
/// `https://api.example.com/mcp/` are different resources.
public struct ResourceIdentifier: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The canonical URL.
    public let url: URL

    /// The canonical form of `url`.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when `url` is not
    ///   absolute, has a fragment (RFC 8707 §2 forbids one), carries user
    ///   information, or is plain http on a host other than a loopback one.
    public init(_ url: URL) throws {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else {
            throw AuthFlowError(
                .configuration, "the resource is not an absolute URL",
                recovery: "Give the API's full URL with scheme and host, such as https://api.example.com/mcp.")
        }
        guard components.fragment == nil else {
            throw AuthFlowError(
                .configuration, "the resource URL has a fragment",
                recovery: "Give the resource without #…: RFC 8707 forbids a fragment in a resource indicator.")
        }
        guard components.user == nil, components.password == nil else {
            throw AuthFlowError(
                .configuration, "the resource URL carries user information",
                recovery: "Give the resource without user@ or user:password@ before the host.")
        }
        try URLPolicy.requireSecure(url, "the resource URL")
        components.scheme = scheme
        components.host = host.lowercased()
        if components.port == Self.defaultPort(scheme) { components.port = nil }
        if components.percentEncodedPath == "/" { components.percentEncodedPath = "" }
        guard let canonical = components.url else { throw AuthFlowError.configuration("the resource URL is not valid") }
        self.url = canonical
    }

    /// The canonical text, as sent in the `resource` parameter.
    public var description: String { url.absoluteString }

    /// The origin (scheme, host and port) of the resource, to which its
    /// tokens are confined.
    public var origin: String {
        Self.origin(of: url) ?? url.absoluteString
    }

    /// Whether `requested` is this resource or lies under it: the same
    /// origin, and this resource's path equal to `requested`'s or a prefix of
    /// it ending at a `/`. `https://api.example.com` covers
    /// `https://api.example.com/mcp`; `https://api.example.com/mcp` covers
    /// `https://api.example.com/mcp/tools` but not `https://api.example.com/mcpx`.
    /// A resource with a query covers only itself, and a requested path with
    /// a dot segment (`..`, `.`, or either percent-encoded), which a server
    /// resolves to another path, is covered by nothing but itself.
    public func covers(_ requested: ResourceIdentifier) -> Bool {
        if requested == self { return true }
        guard Self.origin(of: url) == Self.origin(of: requested.url) else { return false }
        guard let own = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let other = URLComponents(url: requested.url, resolvingAgainstBaseURL: false), own.percentEncodedQuery == nil,
            !Self.hasDotSegment(other.percentEncodedPath)
        else { return false }
        let path = own.percentEncodedPath
        if path.isEmpty { return true }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        return other.percentEncodedPath.hasPrefix(prefix)
    }

    /// Whether `path` has a `.` or `..` segment, plain or percent-encoded (RFC 3986 §5.2.4).
    static func hasDotSegment(_ path: String) -> Bool {
        path.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let decoded = FormEncoding.percentDecoded(segment) ?? String(segment)
            return decoded == "." || decoded == ".."
        }
    }

    /// Whether a request to `target` may carry this resource's token: the
    /// same origin (scheme, host and port).
    public func permitsRequest(to target: URL) -> Bool {
        guard let targetOrigin = Self.origin(of: target) else { return false }
        return targetOrigin == Self.origin(of: url)
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "https": 443
        case "http": 80
        default: nil
        }
    }

    /// `scheme://host[:port]`, lower-cased, without a default port.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port.flatMap { $0 == defaultPort(scheme) ? nil : $0 }
        let hostText = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return port.map { "\(scheme)://\(hostText):\($0)" } ?? "\(scheme)://\(hostText)"
    }
}
