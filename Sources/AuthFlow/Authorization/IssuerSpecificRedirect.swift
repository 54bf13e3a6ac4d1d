import Crypto

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Redirect URIs that name the authorization server they are for: the
/// mix-up defence of RFC 9700 §4.4.2.2 for a client that signs in to servers
/// someone else names (a protected resource's metadata, an MCP server).
///
/// The redirect URI of such a client ends in one more path segment,
/// `as-` followed by 22 base64url characters of SHA-256 of the issuer:
/// `http://127.0.0.1/callback` registered with `https://as.example` becomes
/// `http://127.0.0.1/callback/as-…`. The client registers that URI with that
/// issuer only, sends it in that issuer's requests, and accepts a callback
/// only at the redirect URI of the request it sent
/// (``AuthorizationRequest/validateCallback(_:)``). A server that hands the
/// user to another server, and a callback the other server sends to its own
/// redirect URI, therefore never lead to a code being posted to the wrong
/// token endpoint; `iss` (RFC 9207) is still checked whenever it is sent.
public enum IssuerSpecificRedirect {
    /// The path segment for `issuer`: `as-` and 22 base64url characters
    /// (132 bits of SHA-256 of the issuer's identifier).
    public static func segment(for issuer: Issuer) -> String {
        "as-" + Base64URL.encode(SHA256.hash(data: Array(issuer.identifier.utf8))).prefix(22)
    }

    /// `base` with ``segment(for:)`` appended to its path (unchanged when its
    /// path already ends in that segment); query and fragment are kept.
    public static func uri(_ base: URL, issuer: Issuer) -> URL {
        guard !isSpecific(base, to: issuer), var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
            return base
        }
        let path = components.percentEncodedPath
        components.percentEncodedPath = (path.hasSuffix("/") ? path : path + "/") + segment(for: issuer)
        return components.url ?? base
    }

    /// Whether `uri`'s path ends in the segment for `issuer`.
    public static func isSpecific(_ uri: URL, to issuer: Issuer) -> Bool {
        guard let path = URLComponents(url: uri, resolvingAgainstBaseURL: false)?.percentEncodedPath else { return false }
        return path.hasSuffix("/" + segment(for: issuer))
    }
}
