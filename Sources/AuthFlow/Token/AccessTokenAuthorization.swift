#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `Authorization` field that presents an access token: the one place
/// every request the engine sends with a token builds it.
enum AccessTokenAuthorization {
    /// Whether `tokenType` is `DPoP` (token types compare case-insensitively, RFC 6749 §5.1).
    static func isDPoP(_ tokenType: String) -> Bool {
        tokenType.equalsIgnoringASCIICase("DPoP")
    }

    /// `Authorization: <scheme> <token>`: `DPoP` for a DPoP-bound token (RFC 9449 §7.1),
    /// `Bearer` for a bearer token (RFC 6750 §2.1), else the token type as the scheme.
    static func field(_ accessToken: String, tokenType: String) -> (name: String, value: String) {
        let scheme =
            isDPoP(tokenType) ? "DPoP" : tokenType.equalsIgnoringASCIICase("Bearer") ? "Bearer" : tokenType
        return ("Authorization", "\(scheme) \(accessToken)")
    }
}
