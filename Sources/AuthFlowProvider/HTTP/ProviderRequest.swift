import Foundation

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
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    var mediaType: String? {
        header("Content-Type").map {
            $0.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        }
    }
}
