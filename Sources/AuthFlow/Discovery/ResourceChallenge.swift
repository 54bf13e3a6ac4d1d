#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a protected resource's `WWW-Authenticate` challenge asks of the
/// client: a Bearer challenge (RFC 6750 §3), or a DPoP one (RFC 9449 §7.1)
/// when there is no Bearer challenge, with the RFC 9728 §5.1
/// `resource_metadata` parameter.
///
/// A 401 without a token names where the resource's metadata is; a 403
/// with `error="insufficient_scope"` names the scopes the request needs
/// (step-up authorization); a 401 with
/// `error="insufficient_user_authentication"` names the authentication the
/// request needs (RFC 9470: `acr_values`, `max_age`).
public struct ResourceChallenge: Sendable, Equatable {
    /// The challenge's scheme, lower-cased: `bearer` or `dpop`.
    public var scheme: String
    /// `error` (`invalid_token`, `insufficient_scope`…), when given.
    public var error: String?
    /// `error_description`, when given. Text from the server: show it, never decide on it.
    public var errorDescription: String?
    /// `scope`: the scopes the resource asks for, split on spaces.
    public var scopes: [String]?
    /// `resource_metadata`: where the resource's metadata is (RFC 9728 §5.1),
    /// when it is an absolute URL.
    public var resourceMetadataURL: URL?
    /// `acr_values` (RFC 9470 §3): the authentication context classes the
    /// resource accepts, most preferred first, split on spaces.
    public var acrValues: [String]?
    /// `max_age` (RFC 9470 §3): how many seconds ago the user may have
    /// authenticated at most, when given as a non-negative integer.
    public var maxAge: Int?

    /// The challenge of `response`, or nil when it has no Bearer or DPoP challenge.
    public init?(_ response: HTTPTransportResponse) {
        self.init(challenges: AuthenticationChallenge.challenges(in: response))
    }

    /// The challenge in one `WWW-Authenticate` field value.
    public init?(fieldValue: String) {
        self.init(challenges: AuthenticationChallenge.parse(fieldValue))
    }

    init?(challenges: [AuthenticationChallenge]) {
        guard let chosen = challenges.first(where: { $0.isScheme("Bearer") }) ?? challenges.first(where: { $0.isScheme("DPoP") })
        else { return nil }
        scheme = chosen.scheme
        error = chosen["error"].flatMap { $0.isEmpty ? nil : $0 }
        errorDescription = chosen["error_description"]
        scopes = chosen["scope"].map { $0.split(separator: " ").map(String.init) }.flatMap { $0.isEmpty ? nil : $0 }
        resourceMetadataURL = chosen["resource_metadata"].flatMap { text in
            URL(string: text).flatMap { $0.scheme != nil && $0.host?.isEmpty == false ? $0 : nil }
        }
        acrValues = chosen["acr_values"].map { $0.split(separator: " ").map(String.init) }.flatMap { $0.isEmpty ? nil : $0 }
        maxAge = chosen["max_age"].flatMap { text in
            text.utf8.count <= 10 && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int(text) : nil
        }
    }

    /// Whether the resource refused the token for lacking scope
    /// (`insufficient_scope`, RFC 6750 §3.1).
    public var isInsufficientScope: Bool { error == "insufficient_scope" }

    /// Whether the resource refused the token for how (or how long ago) the
    /// user authenticated (`insufficient_user_authentication`, RFC 9470 §3).
    public var isInsufficientUserAuthentication: Bool { error == "insufficient_user_authentication" }
}
