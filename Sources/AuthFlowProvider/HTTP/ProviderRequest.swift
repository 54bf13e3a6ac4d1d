#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP request as the provider's endpoints see it, independent of the server framework.
struct ProviderRequest: Sendable {
    /// `GET`, `POST`, …
    var method: String
    /// The path, without the query.
    var path: String
    /// The raw (percent-encoded) query, without `?`.
    var query: String
    /// Header fields in order.
    var headers: [(name: String, value: String)]
    /// The body.
    var body: [UInt8]

    /// The first header named `name` (case-insensitive).
    func header(_ name: String) -> String? {
        headers.first { ProviderRequest.sameFieldName($0.name, name) }?.value
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    var mediaType: String? {
        header("Content-Type").map {
            $0.split(separator: ";", maxSplits: 1).first.map(ProviderRequest.trimmedLowercase) ?? ""
        }
    }

    /// Field names are ASCII tokens (RFC 9110 §5.1), compared ASCII case-insensitively.
    static func sameFieldName(_ a: String, _ b: String) -> Bool {
        a.equalsIgnoringASCIICase(b)
    }

    /// The text without the spaces and tabs around it, lowercased.
    static func trimmedLowercase(_ text: Substring) -> String {
        text.trimmingWhitespace().lowercased()
    }
}
#endif
