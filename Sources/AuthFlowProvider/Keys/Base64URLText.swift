import Foundation

/// Base64url without padding (RFC 4648 §5) for the provider's JOSE output and PKCE.
enum Base64URLText {
    /// Encodes bytes.
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url; nil for anything else.
    static func decode(_ text: String) -> [UInt8]? {
        guard !text.contains("="), !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
