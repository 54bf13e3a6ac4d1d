import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The WebFinger question OpenID Connect Discovery 1.0 §2 asks: which issuer
/// signs in this resource? One `GET` through the ``HTTPTransport`` (its
/// discovery limit bounds the answer, the timeout bounds each request), at
/// most ``maximumRedirects`` redirects, each only to an https URL (RFC 7033
/// §4.2; loopback hosts excepted), then the JRD's issuer link.
enum WebFingerLookup {
    /// The most redirects followed before the answer is refused.
    static let maximumRedirects = 3
    /// The redirect statuses followed (RFC 9110 §15.4).
    static let redirects: Set<Int> = [301, 302, 303, 307, 308]

    /// The issuer the WebFinger service of `resource`'s host names for it.
    static func issuer(
        for resource: WebFingerResource, transport: any HTTPTransport, timeout: TimeInterval, logger: Logger
    ) async throws -> Issuer {
        var url = resource.issuerQueryURL
        try requireSecure(url, "the WebFinger service of \(resource.host)")
        for _ in 0...maximumRedirects {
            logger.debug("asking WebFinger for the issuer", metadata: ["host": "\(resource.host)"])
            let response = try await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: url, headers: [("Accept", "application/jrd+json, application/json")], timeout: timeout,
                    purpose: .webFinger))
            if redirects.contains(response.status) {
                guard let location = response.header("Location"), let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw AuthFlowError.invalidResponse("the WebFinger answer from \(resource.host) redirects without a valid Location")
                }
                try requireSecure(next, "the WebFinger redirect from \(resource.host)")
                url = next
                continue
            }
            guard response.status == 200 else {
                throw AuthFlowError(
                    .invalidResponse, "no WebFinger answer for \(resource.resource.prefix(200)) (HTTP \(response.status))",
                    recovery: "The account's host does not say which OpenID provider signs it in: give the provider's issuer instead.",
                    remedy: .giveTheIssuerInstead)
            }
            return try issuer(inJRD: response.body, resource: resource)
        }
        throw AuthFlowError.invalidResponse("the WebFinger answer from \(resource.host) redirects more than \(maximumRedirects) times")
    }

    /// The href of the first link of `body` (a JSON Resource Descriptor,
    /// RFC 7033 §4.4) whose `rel` is the OpenID issuer relation, as an ``Issuer``.
    static func issuer(inJRD body: Data, resource: WebFingerResource) throws -> Issuer {
        guard let object = JSONMemberValue.object(from: body) else {
            throw AuthFlowError.invalidResponse("the WebFinger answer from \(resource.host) is not a JSON object")
        }
        let reader = MemberReader(object: object, context: "the WebFinger answer from \(resource.host)")
        guard case .array(let links)? = object["links"] else {
            if object["links"] == nil { throw noIssuer(resource) }
            throw AuthFlowError.invalidResponse("the WebFinger answer from \(resource.host): links must be an array")
        }
        _ = try reader.string("subject")
        for case .object(let link) in links {
            let linkReader = MemberReader(object: link, context: "the WebFinger answer from \(resource.host)")
            guard try linkReader.string("rel") == WebFingerResource.issuerRelation else { continue }
            let href = try linkReader.requiredString("href")
            do {
                return try Issuer(href)
            } catch let error as AuthFlowError {
                throw AuthFlowError(
                    .invalidResponse,
                    "the WebFinger answer from \(resource.host) names the issuer \(href.prefix(200)), which is not usable: "
                        + error.message,
                    recovery: "The account's provider must be an https issuer. Check the account, or give the provider's issuer instead.",
                    remedy: .giveTheIssuerInstead)
            }
        }
        throw noIssuer(resource)
    }

    private static func noIssuer(_ resource: WebFingerResource) -> AuthFlowError {
        AuthFlowError(
            .invalidResponse, "the WebFinger answer from \(resource.host) has no \(WebFingerResource.issuerRelation) link",
            recovery: "The account's host does not say which OpenID provider signs it in: give the provider's issuer instead.",
            remedy: .giveTheIssuerInstead)
    }

    /// ``URLPolicy/requireSecure(_:_:)`` for a URL the server chose: a
    /// plain-http one is the server's fault, ``AuthFlowError/Category/invalidResponse``.
    private static func requireSecure(_ url: URL, _ what: String) throws {
        do {
            try URLPolicy.requireSecure(url, what)
        } catch let error as AuthFlowError {
            throw AuthFlowError(.invalidResponse, "\(error.message): \(HTTPTransportRequest.endpointName(url))")
        }
    }
}
