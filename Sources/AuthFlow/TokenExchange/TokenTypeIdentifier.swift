/// A token type identifier (RFC 8693 §3): the URI that names what kind of
/// security token a token exchange takes or issues.
///
/// The RFC 8693 §3 identifiers are constants, plus the Identity Assertion
/// JWT Authorization Grant's (``idJAG``). Any other absolute URI is accepted
/// with ``init(_:)``, so that a provider's own token types can be named.
///
/// ```swift
/// let type = TokenTypeIdentifier.accessToken
/// print(type) // urn:ietf:params:oauth:token-type:access_token
/// ```
///
/// Encoded (`Codable`) as its URI string.
public struct TokenTypeIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The URI, such as `urn:ietf:params:oauth:token-type:access_token`.
    public let rawValue: String

    /// The longest identifier accepted, in bytes.
    static let maximumLength = 1024

    /// An identifier with the URI `uri`, or `nil` when `uri` is not an
    /// absolute URI (a scheme, `:`, then printable ASCII without spaces), or
    /// is longer than 1024 bytes.
    public init?(_ uri: String) {
        guard Self.isAbsoluteURI(uri) else { return nil }
        rawValue = uri
    }

    private init(known uri: String) { rawValue = uri }

    /// The URI.
    public var description: String { rawValue }

    /// An OAuth 2.0 access token (RFC 8693 §3).
    public static let accessToken = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:access_token")
    /// An OAuth 2.0 refresh token (RFC 8693 §3).
    public static let refreshToken = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:refresh_token")
    /// An OpenID Connect ID token (RFC 8693 §3).
    public static let idToken = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:id_token")
    /// A base64url-encoded SAML 1.1 assertion (RFC 8693 §3).
    public static let saml1 = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:saml1")
    /// A base64url-encoded SAML 2.0 assertion (RFC 8693 §3).
    public static let saml2 = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:saml2")
    /// A JSON Web Token (RFC 8693 §3, RFC 7519 §9).
    public static let jwt = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:jwt")
    /// An Identity Assertion JWT Authorization Grant
    /// (draft-ietf-oauth-identity-assertion-authz-grant): a JWT an identity
    /// provider issues for presentation to another authorization server
    /// with the JWT bearer grant.
    public static let idJAG = TokenTypeIdentifier(known: "urn:ietf:params:oauth:token-type:id-jag")

    /// The identifiers above.
    public static let known: [TokenTypeIdentifier] = [accessToken, refreshToken, idToken, saml1, saml2, jwt, idJAG]

    /// Reads the URI string; anything else is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = TokenTypeIdentifier(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a token type identifier must be an absolute URI")
        }
        self = value
    }

    /// Writes the URI string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// RFC 3986 §4.3 in the shape a token type takes: `scheme:rest`, the
    /// scheme a letter then letters, digits, `+`, `-` or `.`, the rest
    /// printable ASCII without spaces.
    static func isAbsoluteURI(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength, let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon < bytes.count - 1
        else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
        guard isLetter(bytes[0]) else { return false }
        for byte in bytes[1..<colon] {
            guard
                isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: ".")
            else { return false }
        }
        return bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
