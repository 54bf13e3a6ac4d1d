#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Form parameters parsed strictly: RFC 6749 §3.1 and §3.2 forbid repeating
/// a parameter, so any repetition is `invalid_request`; so is a malformed
/// percent escape. Empty values count as absent.
struct StrictForm: Sendable {
    private let values: [String: String]

    /// Parses `text` (a query or an `application/x-www-form-urlencoded` body).
    init(_ text: String) throws(OAuthFailure) {
        try self.init(pairs: FormEncoding.decode(text))
    }

    private init(pairs: [(String, String)]?) throws(OAuthFailure) {
        guard let pairs else { throw .invalidRequest("the parameters are not properly form-encoded") }
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard values.updateValue(value, forKey: name) == nil else {
                throw .invalidRequest("the \(name) parameter is repeated")
            }
        }
        self.values = values
    }

    /// Parses a POST body; it must be form-encoded.
    init(body request: ProviderRequest) throws(OAuthFailure) {
        guard request.mediaType == "application/x-www-form-urlencoded" else {
            throw .invalidRequest("the body must be application/x-www-form-urlencoded")
        }
        try self.init(pairs: FormEncoding.decode(utf8: request.body))
    }

    /// The value of `name`, if present and non-empty.
    subscript(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The value of `name`, or `invalid_request`.
    func required(_ name: String) throws(OAuthFailure) -> String {
        guard let value = self[name] else { throw .invalidRequest("the \(name) parameter is missing") }
        return value
    }

    /// The space-separated scope values.
    var scopes: [String]? {
        self["scope"].map { $0.split(separator: " ").map(String.init) }
    }
}
#endif
