import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fetch loop that provider discovery (OpenID Connect Discovery, RFC
/// 8414) and protected-resource discovery (RFC 9728) share: ask each
/// candidate URL in turn with `GET` and `Accept: application/json` (the
/// transport's discovery limit bounds each answer), pass over the statuses
/// that mean "no document here", and read the first document found.
enum MetadataFetch {
    /// Statuses that mean there is no document at a place: 400, 404, 405, 410.
    static let passedOver: Set<Int> = [400, 404, 405, 410]

    /// What a place held: the document read by `read`, or the status of the
    /// last place when none had one.
    enum Outcome<Document> {
        case found(Document, url: URL)
        case notFound(lastStatus: Int)
    }

    /// Reads the first document at `candidates` with `read` (which may throw
    /// to refuse it: a refused document ends the search). Any status other
    /// than 200 and ``passedOver`` is ``AuthFlowError/Category/invalidResponse``
    /// naming `purpose`.
    static func firstDocument<Document>(
        at candidates: [URL], purpose: String, transport: any HTTPTransport, timeout: TimeInterval, logger: Logger,
        read: (_ body: Data, _ url: URL) throws -> Document
    ) async throws -> Outcome<Document> {
        var lastStatus = 0
        for url in candidates {
            logger.debug("fetching \(purpose)", metadata: ["url": "\(url.absoluteString)"])
            let response = try await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: url, headers: [("Accept", "application/json")], timeout: timeout, purpose: .discovery))
            guard response.status == 200 else {
                logger.debug("no \(purpose) here", metadata: ["url": "\(url.absoluteString)", "status": "\(response.status)"])
                lastStatus = response.status
                if passedOver.contains(response.status) { continue }
                throw AuthFlowError.invalidResponse("\(purpose) request answered HTTP \(response.status)")
            }
            return .found(try read(response.body, url), url: url)
        }
        return .notFound(lastStatus: lastStatus)
    }
}
