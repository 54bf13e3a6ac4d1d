/// The request line and the headers the listener looks at.
struct RequestHead: Sendable {
    /// The method, as sent (methods are case-sensitive).
    var method: String
    /// The request target as sent: printable ASCII, at most
    /// ``RequestLimits/target`` bytes.
    var target: String
    /// The first `Content-Type` header, if any.
    var contentType: String?

    /// The target up to its first `?`.
    var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// The target after its first `?`, or nil without one.
    var query: String? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return String(target[target.index(after: mark)...])
    }
}

/// What to do with the body of a request whose head has arrived.
enum BodyHandling: Sendable {
    /// Read it and hand it on (a form_post callback).
    case keep
    /// Read it (within the limit) and drop it.
    case discard
    /// Answer with this status at once.
    case refuse(ResponseStatus)
}
