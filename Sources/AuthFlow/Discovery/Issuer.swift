#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An authorization server's issuer identifier (RFC 8414 §2, OpenID Connect
/// Discovery 1.0 §3), validated once when it is made.
///
/// An issuer is an `https` URL (plain `http` only on a loopback host) with a
/// host and no query or fragment. It is compared with `iss` values (metadata,
/// ID tokens, RFC 9207 authorization responses, JWT access tokens) exactly, as
/// the string it was made from: no case folding, no trailing-slash or port
/// normalisation.
///
/// A few providers publish an issuer *template* for their multi-tenant
/// authorities: Microsoft Entra ID's `common`, `organizations` and `consumers`
/// metadata name `https://login.microsoftonline.com/{tenantid}/v2.0`. Such an
/// issuer ``isTemplate``, holds ``tenantPlaceholder`` exactly once in its path,
/// and stands for every issuer ``instantiated(tid:)`` makes of it; whether a
/// tenant may sign in is ``IssuerTenants``'s decision.
///
/// ```swift
/// let issuer = try Issuer("https://accounts.google.com")
/// let client = try await OAuthClient(issuer: issuer, clientID: "…")
/// ```
public struct Issuer: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The identifier exactly as given: what every `iss` is compared with.
    public let identifier: String
    /// The identifier as a URL. A template's placeholder is percent-encoded
    /// here (`%7Btenantid%7D`); ``identifier`` keeps it as written.
    public let url: URL

    /// The placeholder a template issuer holds in its path.
    public static let tenantPlaceholder = "{tenantid}"

    /// Validates `identifier` as an issuer.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` with the remedy
    ///   ``AuthFlowError/Remedy/giveTheIssuerURL`` when it is not an absolute
    ///   URL, has a query or fragment, or holds braces other than one
    ///   ``tenantPlaceholder`` in its path; and when it is plain `http` on a
    ///   host other than a loopback one.
    public init(_ identifier: String) throws {
        guard identifier.utf8.count <= Self.maximumLength,
            let url = URL(string: identifier), let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.scheme != nil, components.host?.isEmpty == false
        else {
            throw Self.invalid("issuer is not an absolute URL", "Give the provider's full issuer URL, such as https://accounts.google.com.")
        }
        guard components.query == nil, components.fragment == nil else {
            throw Self.invalid(
                "issuer must not have a query or fragment",
                "Give the issuer without ?… or #…: the issuer is the URL before /.well-known/openid-configuration.")
        }
        let braces = identifier.utf8.lazy.filter { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "}") }.count
        if braces > 0 {
            guard braces == 2, identifier.components(separatedBy: Self.tenantPlaceholder).count == 2,
                components.path.contains(Self.tenantPlaceholder)
            else {
                throw Self.invalid(
                    "issuer holds braces other than one \(Self.tenantPlaceholder) placeholder in its path",
                    "Give the issuer as the provider's metadata names it; only a multi-tenant template holds \(Self.tenantPlaceholder).")
            }
        }
        try URLPolicy.requireSecure(url, "issuer")
        self.identifier = identifier
        self.url = url
    }

    /// The issuer `http://127.0.0.1:PORT` of a server on this machine (the
    /// embedded provider's), which needs no validation.
    package init(loopbackPort port: Int) {
        identifier = "http://127.0.0.1:\(port)"
        url = URL(string: identifier) ?? URL(fileURLWithPath: "/")
    }

    /// Validates `url` as an issuer; its identifier is `url.absoluteString`.
    public init(_ url: URL) throws {
        try self.init(url.absoluteString)
    }

    /// Whether this is a multi-tenant template (holds ``tenantPlaceholder``).
    public var isTemplate: Bool {
        // Asked on every ID token: an issuer without a brace is no template.
        identifier.utf8.contains(UInt8(ascii: "{"))
    }

    /// The issuer this template names for the tenant `tid`.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when this issuer is
    ///   no template, or `tid` is not a tenant ID (one path segment of
    ///   letters, digits, `-`, `.` and `_`).
    public func instantiated(tid: String) throws -> Issuer {
        guard isTemplate else {
            throw AuthFlowError(
                .configuration, "the issuer \(identifier) is not a multi-tenant template",
                recovery: "Only an issuer holding \(Self.tenantPlaceholder) names one issuer per tenant.")
        }
        guard Self.isTenantID(tid) else {
            throw AuthFlowError(
                .configuration, "\"\(tid.prefix(130))\" is not a tenant ID",
                recovery: "A tenant ID is one path segment of letters, digits, '-', '.' and '_'.", remedy: .fixTheTenantList)
        }
        return try Issuer(identifier.replacing(Self.tenantPlaceholder, with: tid))
    }

    /// The tenant ID `iss` names when it is this template with a tenant ID in
    /// place; `nil` for any other `iss`, and whenever this is no template.
    public func tenant(in iss: String) -> String? {
        guard isTemplate else { return nil }
        let parts = identifier.components(separatedBy: Self.tenantPlaceholder)
        guard parts.count == 2 else { return nil }
        let (text, head, tail) = (Array(iss.utf8), Array(parts[0].utf8), Array(parts[1].utf8))
        guard text.count > head.count + tail.count, text.starts(with: head), text.reversed().starts(with: tail.reversed()) else {
            return nil
        }
        let tenant = String(decoding: text[head.count..<(text.count - tail.count)], as: UTF8.self)
        return Self.isTenantID(tenant) ? tenant : nil
    }

    /// Whether `iss` names this issuer: equal to ``identifier`` byte for byte
    /// (RFC 9207 §2.4 and OpenID Connect Core §3.1.3.7 compare the strings
    /// exactly: no Unicode equivalence, as Swift's `==` has), or, for a
    /// template, an instance for a tenant `tenants` allows (never without `tenants`).
    public func admits(_ iss: String, tenants: IssuerTenants?) -> Bool {
        if iss.hasSameBytes(as: identifier) { return true }
        guard let tenants, let tenant = tenant(in: iss) else { return false }
        return tenants.allows(tenant)
    }

    /// The identifier.
    public var description: String { identifier }

    /// Decodes the identifier string and validates it as ``init(_:)-(String)`` does.
    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the identifier as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }

    /// Equal when the identifiers are equal, byte for byte.
    public static func == (lhs: Issuer, rhs: Issuer) -> Bool { lhs.identifier.hasSameBytes(as: rhs.identifier) }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    /// The longest identifier accepted (no real issuer comes near it).
    static let maximumLength = 2048

    /// A tenant ID as it may stand in an issuer URL: one non-empty path
    /// segment of letters, digits, `-`, `.` and `_`, at most 128 characters.
    static func isTenantID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 128 && text != "." && text != ".."
            && text.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            }
    }

    private static func invalid(_ message: String, _ recovery: String) -> AuthFlowError {
        AuthFlowError(.configuration, message, recovery: recovery, remedy: .giveTheIssuerURL)
    }
}
