/// One answer of the loopback listener: an HTML page that echoes nothing
/// from the request (a fixed page, or the one-time RP-initiated logout form),
/// sent once, after which the connection closes.
struct Response: Sendable {
    var status: ResponseStatus
    var page: String
    /// The `Allow` header, for 405.
    var allow: String?
    /// The `Content-Security-Policy` header.
    var contentSecurityPolicy: String

    /// Fixed pages: no script, no resource, no form.
    static let strictPolicy = "default-src 'none'; style-src 'unsafe-inline'"

    init(_ status: ResponseStatus, page: String, allow: String? = nil, contentSecurityPolicy: String = Response.strictPolicy) {
        self.status = status
        self.page = page
        self.allow = allow
        self.contentSecurityPolicy = contentSecurityPolicy
    }

    /// The status line, the headers and the page, as sent.
    var bytes: [UInt8] {
        let body = Array(page.utf8)
        var head = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        head += "Content-Type: text/html; charset=utf-8\r\n"
        head += "Content-Length: \(body.count)\r\n"
        head += "Connection: close\r\n"
        head += "Cache-Control: no-store\r\n"
        head += "Referrer-Policy: no-referrer\r\n"
        head += "X-Content-Type-Options: nosniff\r\n"
        head += "Content-Security-Policy: \(contentSecurityPolicy)\r\n"
        if let allow { head += "Allow: \(allow)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}

/// The fixed pages the listener serves. They echo nothing from the request.
enum Pages {
    private static func page(_ title: String, _ text: String) -> String {
        """
        <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title>\
        <style>body{font-family:system-ui,sans-serif;margin:4em auto;max-width:32em;text-align:center}</style>\
        </head><body><h1>\(title)</h1><p>\(text)</p></body></html>
        """
    }

    static let done = page("Signed in", "You can close this window and return to the application.")
    static let failed = page("Sign-in failed", "The sign-in did not succeed. Return to the application to see why, then close this window.")
    static let signedOut = page("Signed out", "The provider ended the session. You can close this window and return to the application.")
    static let unexpected = page("Unexpected response", "This sign-in response was not expected. Close this window and start again.")
    static let notFound = page("Not found", "Nothing here.")
}
