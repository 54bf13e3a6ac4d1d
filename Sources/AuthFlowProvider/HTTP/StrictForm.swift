import AuthFlow
import Foundation

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
        let body = request.body
        try self.init(pairs: body.allSatisfy { $0 < 0x80 } ? StrictForm.decodeASCII(body)
                                                            : FormEncoding.decode(String(decoding: body, as: UTF8.self)))
    }

    /// `FormEncoding.decode` of an all-ASCII body, straight from its bytes
    /// (without a String of the whole body and its Character-wise splits):
    /// in ASCII text every `&` and `=` is a Character of its own, so
    /// splitting bytes gives the same pairs. Nil for a malformed percent
    /// escape or one that does not decode to UTF-8.
    static func decodeASCII(_ body: [UInt8]) -> [(String, String)]? {
        var pairs: [(String, String)] = []
        for part in body.split(separator: UInt8(ascii: "&")) {
            let equals = part.firstIndex(of: UInt8(ascii: "="))
            guard let name = unescape(part[..<(equals ?? part.endIndex)]) else { return nil }
            let value = equals.map { unescape(part[part.index(after: $0)...]) } ?? ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// One component: `+` is a space, `%XX` a byte; the result must be UTF-8.
    private static func unescape(_ bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else {
            return String(decoding: bytes, as: UTF8.self)  // ASCII: valid as it is
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "+"): output.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index + 1 < bytes.endIndex, let high = hexValue(bytes[index]), let low = hexValue(bytes[index + 1]) else { return nil }
                output.append(high << 4 | low)
                index += 2
            default: output.append(byte)
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
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
