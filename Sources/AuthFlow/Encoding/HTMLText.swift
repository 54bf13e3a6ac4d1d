/// Text for HTML element content and quoted attribute values, for the few
/// pages this package serves (the loopback listener's, the embedded
/// provider's).
///
/// Escapes scalar by scalar: a quote followed by a combining mark is one
/// `Character`, so a `Character`-based escape would leave the quote as it is
/// and let the text out of its attribute; browsers tokenize code points.
package enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` as character references.
    package static func escaped(_ text: String) -> String {
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output.append(contentsOf: "&amp;".unicodeScalars)
            case "<": output.append(contentsOf: "&lt;".unicodeScalars)
            case ">": output.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": output.append(contentsOf: "&quot;".unicodeScalars)
            case "'": output.append(contentsOf: "&#39;".unicodeScalars)
            default: output.append(scalar)
            }
        }
        return String(output)
    }
}
