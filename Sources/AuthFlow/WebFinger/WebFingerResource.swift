#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a person types to name their account, normalised into the resource of a
/// WebFinger query (OpenID Connect Discovery 1.0 §2.1, RFC 7033).
///
/// The normalisation follows §2.1:
///
/// - An identifier with a scheme is kept as it is: `acct:alice@example.com`,
///   `https://example.com/alice`.
/// - Without a scheme, `user@host` (nothing after the host) becomes the
///   account URI `acct:user@host`.
/// - Any other form without a scheme (`example.com`, `example.com:8080`,
///   `alice@example.com:8080`, `example.com/alice`) becomes an `https` URL.
/// - A fragment is removed.
///
/// The ``host`` is where the question is asked: the part after the last `@`
/// of an account URI, and the authority (host and port) of a URL.
///
/// ```swift
/// let resource = try WebFingerResource("alice@example.com")
/// // resource.resource == "acct:alice@example.com", resource.host == "example.com"
/// ```
public struct WebFingerResource: Sendable, Hashable, CustomStringConvertible {
    /// The normalised identifier, sent as the WebFinger `resource` parameter.
    public let resource: String
    /// The host (with its port, when one was given) whose WebFinger service is asked.
    public let host: String

    /// The link relation of an OpenID Connect issuer (Discovery 1.0 §2).
    public static let issuerRelation = "http://openid.net/specs/connect/1.0/issuer"

    /// Normalises `identifier`.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` (remedy
    ///   ``AuthFlowError/Remedy/giveAnAccount``) when it is empty, longer
    ///   than 2048 bytes, holds spaces, control characters or other
    ///   characters than ASCII, has a scheme
    ///   other than `acct`, `https` and `http`, or names no host.
    public init(_ identifier: String) throws {
        var text = identifier.trimmingWhitespace()
        guard !text.isEmpty, text.utf8.count <= 2048 else { throw Self.invalid("the account is empty or too long") }
        guard !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else {
            throw Self.invalid("the account must not hold spaces or control characters")
        }
        // A URI is ASCII (RFC 3986); other characters are percent-encoded (a host in its punycode form).
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw Self.invalid("the account must be ASCII: percent-encode other characters, and give a host in its xn-- form")
        }
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        let scheme = Self.scheme(of: text)
        switch scheme {
        case "acct":
            let account = text.dropFirst("acct:".count)
            guard let at = account.lastIndex(of: "@"), at != account.startIndex else {
                throw Self.invalid("the account URI \(text.prefix(200)) has no user@host")
            }
            resource = "acct:" + account
            host = try Self.checkedHost(String(account[account.index(after: at)...]))
        case "https", "http":
            resource = text
            host = try Self.checkedHost(Self.authority(ofURL: text))
        case nil:
            let at = text.lastIndex(of: "@")
            let afterUser = at.map { text[text.index(after: $0)...] } ?? text[...]
            // An IPv6 literal's colons are part of the host: only what follows `]` can be a port or path.
            let afterHost = afterUser.hasPrefix("[") ? afterUser.drop { $0 != "]" } : afterUser
            let hostOnly = !afterHost.contains(where: { ":/?".contains($0) })
            if let at, at != text.startIndex, hostOnly {
                resource = "acct:" + text
                host = try Self.checkedHost(String(afterUser))
            } else {
                resource = "https://" + text
                host = try Self.checkedHost(Self.authority(ofURL: resource))
            }
        case let other?:
            throw Self.invalid("the account has the scheme \(other.prefix(40)):, not acct:, https: or http:")
        }
    }

    /// The WebFinger query for the issuer of this resource (RFC 7033 §4):
    /// `https://{host}/.well-known/webfinger?resource=…&rel=…`. A loopback
    /// host (127.0.0.0/8, `[::1]`, `localhost`, a provider on this machine) is
    /// asked over plain `http`.
    public var issuerQueryURL: URL {
        let query = FormEncoding.encode([("resource", resource), ("rel", Self.issuerRelation)])
        let loopback = URL(string: "http://\(host)").map(URLPolicy.isLoopback) ?? false
        // The host was checked to make a URL with this scheme, path and query.
        return URL(string: "\(loopback ? "http" : "https")://\(host)/.well-known/webfinger?\(query)")
            ?? URL(fileURLWithPath: "/")
    }

    /// The resource.
    public var description: String { resource }

    /// The scheme of `text` when it starts with one (RFC 3986 §3.1) that is
    /// not the host of a scheme-less `host:port` or `user@host:port`.
    private static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isASCII, first.isLetter else { return nil }
        let name = text[..<colon]
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        // The schemes a resource has are always read as schemes, so that a resource normalises to itself.
        if ["acct", "https", "http"].contains(name.lowercased()) { return name.lowercased() }
        let rest = text[text.index(after: colon)...]
        // `example.com:8080` and `example.com:8080/alice` are a host and port, not the scheme "example.com".
        let port = rest.prefix { !"/?#".contains($0) }
        if !port.isEmpty, port.allSatisfy({ $0.isASCII && $0.isNumber }) { return nil }
        return name.lowercased()
    }

    /// The authority (host and port, no user) of the URL `text`.
    private static func authority(ofURL text: String) throws -> String {
        guard let components = URLComponents(string: text), let host = components.percentEncodedHost, !host.isEmpty else {
            throw invalid("the account URL \(text.prefix(200)) names no host")
        }
        // An IPv6 literal keeps its brackets, whichever form Foundation gives it in.
        let literal = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return components.port.map { "\(literal):\($0)" } ?? literal
    }

    /// `host` if it is a host with an optional port that makes a valid URL.
    private static func checkedHost(_ host: String) throws -> String {
        guard !host.isEmpty, !host.contains(where: { "/?#@\\".contains($0) }),
            let components = URLComponents(string: "https://\(host)/"), components.host?.isEmpty == false,
            components.user == nil,
            // The query URL must name the host too (Foundation reads `[]` as a host in components only).
            let query = URL(string: "https://\(host)/.well-known/webfinger"), query.host?.isEmpty == false,
            query.host != "[]"
        else { throw invalid("the account names no valid host (\(host.prefix(200)))") }
        return host.lowercased()
    }

    private static func invalid(_ message: String) -> AuthFlowError {
        AuthFlowError(
            .configuration, message,
            recovery: "Give the account as user@host (such as alice@example.com), an acct: URI, or an https URL.",
            remedy: .giveAnAccount)
    }
}
