import AuthFlow
import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decides the answer to each request on the loopback listener.
///
/// The callback arrives either as a GET with the response in the query, or,
/// only when the authorization request asked for `response_mode=form_post`,
/// as a POST with an `application/x-www-form-urlencoded` body. Both pass the
/// same rule before they are handed on: the first request carrying the
/// expected `state` wins, everything else is refused. The winner's page is
/// the engine's verdict on it (``CallbackVerdict``): "Signed in" only for a
/// code that passes the callback validation, an error page for an error
/// response or anything else. The callback path serves one segment more
/// (an issuer-specific redirect URI). Other paths get 404,
/// other methods 405. Nothing secret reaches the log.
struct CallbackResponder: Sendable {
    let path: String
    let inbox: CallbackInbox
    let logger: Logger

    /// The methods the listener serves.
    static let allowedMethods = "GET, POST"

    /// What to do with the body of the request whose head is `head`.
    func bodyHandling(for head: RequestHead) -> BodyHandling {
        switch head.method {
        case "GET":
            return .discard
        case "POST":
            guard Self.isCallbackPath(head.path, under: path), head.query == nil, inbox.expectsFormPost else { return .discard }
            guard Self.isFormEncoded(head.contentType) else {
                logger.debug("loopback listener: form_post callback without a form body")
                return .refuse(.unsupportedMediaType)
            }
            return .keep
        default:
            logger.debug("loopback listener: method not allowed", metadata: ["method": "\(head.method.prefix(16))"])
            return .refuse(.methodNotAllowed)
        }
    }

    /// The answer to a complete request; `body` is the body when it was kept.
    func respond(to head: RequestHead, body: [UInt8]?) -> Response {
        if let body { return respondToFormPost(body, at: head.path) }
        if head.method == "GET", let page = inbox.takeOneTimePage(at: head.path) {
            logger.debug("loopback listener: one-time page served")
            return page
        }
        guard Self.isCallbackPath(head.path, under: path), head.method == "GET" else {
            logger.debug("loopback listener: not the callback", metadata: ["path": "\(head.path.prefix(64))", "method": "\(head.method)"])
            return Response(.notFound, page: Pages.notFound)
        }
        return deliver(target: head.target, query: head.query ?? "")
    }

    /// Whether `candidate` is the callback `path` or that with one more
    /// segment (an issuer-specific redirect URI): the engine's validation
    /// then decides whether it is the one the request was sent with.
    static func isCallbackPath(_ candidate: String, under path: String) -> Bool {
        if candidate == path { return true }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        guard candidate.hasPrefix(prefix) else { return false }
        let segment = candidate.dropFirst(prefix.count)
        return !segment.isEmpty && !segment.contains("/")
    }

    /// The answer to a request refused with `status` before it was complete.
    func refuse(_ status: ResponseStatus) -> Response {
        logger.debug("loopback listener: request refused", metadata: ["status": "\(status.code)"])
        return Response(status, page: Pages.unexpected, allow: status == .methodNotAllowed ? Self.allowedMethods : nil)
    }

    /// `application/x-www-form-urlencoded`, with or without parameters (charset).
    static func isFormEncoded(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
            .trimmingWhitespace()
        return type.lowercased() == "application/x-www-form-urlencoded"
    }

    /// A form_post body is a form-encoded parameter list, as a query is: it is
    /// handed on as the query of the callback URL, so that one validation
    /// (redirect URI, state, iss, error, code) serves both.
    private func respondToFormPost(_ body: [UInt8], at path: String) -> Response {
        let text = String(decoding: body, as: UTF8.self)
        guard FormEncoding.decode(text) != nil else {
            logger.debug("loopback listener: form_post body is not a valid form")
            return Response(.badRequest, page: Pages.unexpected)
        }
        let query = text.trimmingWhitespaceAndNewlines()
        return deliver(target: path + "?" + query, query: query)
    }

    private func deliver(target: String, query: String) -> Response {
        let state = FormEncoding.decode(query)?.first { $0.0 == "state" }?.1
        let verdict = inbox.offer(target: target, state: state)
        guard let page = verdict.page else {
            logger.debug("loopback listener: callback ignored (state missing, wrong, or already answered)")
            return Response(.badRequest, page: Pages.unexpected)
        }
        if verdict == .failed {
            logger.debug("loopback listener: callback received (an error response or one that fails validation)")
        } else {
            logger.debug("loopback listener: callback received")
        }
        return Response(.ok, page: page)
    }
}
