/// The HTTP status codes the loopback listener answers with.
struct ResponseStatus: Hashable, Sendable {
    /// The status code.
    let code: Int
    /// The reason phrase of the status line.
    let reason: String

    static let ok = ResponseStatus(code: 200, reason: "OK")
    static let badRequest = ResponseStatus(code: 400, reason: "Bad Request")
    static let notFound = ResponseStatus(code: 404, reason: "Not Found")
    static let methodNotAllowed = ResponseStatus(code: 405, reason: "Method Not Allowed")
    static let requestTimeout = ResponseStatus(code: 408, reason: "Request Timeout")
    static let contentTooLarge = ResponseStatus(code: 413, reason: "Content Too Large")
    static let uriTooLong = ResponseStatus(code: 414, reason: "URI Too Long")
    static let unsupportedMediaType = ResponseStatus(code: 415, reason: "Unsupported Media Type")
    static let notImplemented = ResponseStatus(code: 501, reason: "Not Implemented")
}
