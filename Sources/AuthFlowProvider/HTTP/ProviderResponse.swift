#if EmbeddedProvider // the EmbeddedProvider package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An HTTP response from one of the provider's endpoints.
struct ProviderResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// A JSON response. Token-endpoint answers pass `noStore` (RFC 6749 §5.1).
    static func json(_ value: JSONMemberValue, status: Int = 200, noStore: Bool = false, extraHeaders: [(name: String, value: String)] = [])
        -> ProviderResponse
    {
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if noStore { headers += [("Cache-Control", "no-store"), ("Pragma", "no-cache")] }
        let body = (try? JSONBody.bytes(value)) ?? Array("{}".utf8)
        return ProviderResponse(status: status, headers: headers + extraHeaders, body: body)
    }

    /// An HTML page; never cached, never framed.
    static func html(_ page: String, status: Int = 200) -> ProviderResponse {
        ProviderResponse(
            status: status,
            headers: [
                ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
                ("X-Frame-Options", "DENY"), ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"),
            ], body: Array(page.utf8))
    }

    /// A 302 redirect to `location`.
    static func redirect(_ location: String) -> ProviderResponse {
        ProviderResponse(status: 302, headers: [("Location", location), ("Cache-Control", "no-store")], body: [])
    }

    /// 404 for unknown paths.
    static let notFound = ProviderResponse(status: 404, headers: [("Content-Type", "text/plain")], body: Array("not found\n".utf8))

    /// 405 with the allowed methods.
    static func methodNotAllowed(_ allowed: String) -> ProviderResponse {
        ProviderResponse(
            status: 405, headers: [("Allow", allowed), ("Content-Type", "text/plain")], body: Array("method not allowed\n".utf8))
    }
}
#endif
