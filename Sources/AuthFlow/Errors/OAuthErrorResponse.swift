#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An OAuth 2.0 error response (RFC 6749 §4.1.2.1 and §5.2).
public struct OAuthErrorResponse: Sendable, Equatable, Codable {
    /// The `error` code, such as `invalid_grant`.
    public let error: String
    /// The server's `error_description`, if any.
    public let errorDescription: String?
    /// The server's `error_uri`, if any.
    public let errorURI: String?

    /// Creates an error response value.
    public init(error: String, errorDescription: String? = nil, errorURI: String? = nil) {
        self.error = error
        self.errorDescription = errorDescription
        self.errorURI = errorURI
    }

    /// This response with every occurrence of `secrets` in its text replaced
    /// by `<redacted>`: servers sometimes echo what they were sent.
    func redacting(_ secrets: [String]) -> OAuthErrorResponse {
        func scrub(_ text: String?) -> String? {
            guard var text else { return nil }
            for secret in secrets where secret.count >= 4 { text = text.replacing(secret, with: "<redacted>") }
            return text
        }
        return OAuthErrorResponse(error: scrub(error) ?? error, errorDescription: scrub(errorDescription), errorURI: scrub(errorURI))
    }

    enum CodingKeys: String, CodingKey {
        case error
        case errorDescription = "error_description"
        case errorURI = "error_uri"
    }
}
