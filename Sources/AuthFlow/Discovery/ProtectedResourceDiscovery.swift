public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ProtectedResourceMetadata {
    /// The well-known places of a resource's metadata (RFC 9728 §3.1), in
    /// the order AuthFlow asks: `/.well-known/oauth-protected-resource`
    /// inserted before the resource's path, then at the root of its origin.
    /// A resource without a path has one place.
    public static func metadataURLs(for resource: ResourceIdentifier) -> [URL] {
        guard var components = URLComponents(url: resource.url, resolvingAgainstBaseURL: false) else { return [] }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedQuery = nil
        components.percentEncodedPath = "/.well-known/oauth-protected-resource"
        let root = components.url
        components.percentEncodedPath = "/.well-known/oauth-protected-resource" + path
        let inserted = components.url
        if path.isEmpty { return [root].compactMap { $0 } }
        return [inserted, root].compactMap { $0 }
    }

    /// Finds, fetches and checks the metadata of the protected resource at
    /// `resource` (RFC 9728).
    ///
    /// `metadataURL` is the `resource_metadata` of the resource's
    /// `WWW-Authenticate` challenge (RFC 9728 §5.1, see ``ResourceChallenge``)
    /// when its 401 named one; it is asked first. Then the well-known places
    /// of ``metadataURLs(for:)`` are asked in turn; a place that answers 404,
    /// 400, 405 or 410 is passed over.
    ///
    /// The document must describe `resource` (RFC 9728 §3.3), because its
    /// `resource` becomes the audience of the tokens: it is the URL asked
    /// for, or a parent path of it (``ResourceIdentifier/covers(_:)``) whose
    /// own well-known place the document was read from (the resource's
    /// owner published it there). The bare origin is accepted only when it
    /// is the URL asked for: a document at the root of the origin, or one a
    /// challenge points to, cannot widen a token for `/tenant/a` to every
    /// path of the host.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` for a resource or
    ///   metadata URL that is not https (loopback hosts excepted);
    ///   ``AuthFlowError/Category/invalidResponse`` for a document that
    ///   describes another resource, is not valid metadata, or is larger than
    ///   the transport's discovery limit, for an answer other than 200 and the
    ///   statuses passed over, and when no place has a document;
    ///   ``AuthFlowError/Category/timeout`` or ``AuthFlowError/Category/network``
    ///   from the transport.
    public static func discover(
        resource: URL, metadataURL: URL? = nil, transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        logger: Logger = .authFlow()
    ) async throws -> ProtectedResourceMetadata {
        let requested = try ResourceIdentifier(resource)
        var candidates = metadataURLs(for: requested)
        if let metadataURL {
            try URLPolicy.requireSecure(metadataURL, "the resource_metadata URL")
            candidates.removeAll { $0 == metadataURL }
            candidates.insert(metadataURL, at: 0)
        }
        let outcome = try await MetadataFetch.firstDocument(
            at: candidates, purpose: "protected resource metadata", transport: transport, timeout: timeout, logger: logger
        ) { body, url in
            let metadata = try ProtectedResourceMetadata(json: body)
            guard describes(metadata.resource, requested: requested, fetchedFrom: url) else {
                throw AuthFlowError(
                    .invalidResponse,
                    "the protected resource metadata at \(url.absoluteString) describes \(metadata.resource), not \(requested)",
                    recovery: "The API's metadata names another resource (RFC 9728 §3.3), so its authorization servers are not trusted "
                        + "for this URL. Check the URL of the API.")
            }
            return metadata
        }
        switch outcome {
        case .found(let metadata, _):
            logger.debug("protected resource metadata loaded", metadata: ["resource": "\(metadata.resource)"])
            return metadata
        case .notFound(let lastStatus):
            throw AuthFlowError(
                .invalidResponse, "no protected resource metadata found for \(requested) (HTTP \(lastStatus))",
                recovery: "The API publishes no RFC 9728 metadata: sign in with its authorization server's issuer and client instead.")
        }
    }

    /// Whether `resource`, named by the document read from `url`, may stand
    /// for `requested` (see ``discover(resource:metadataURL:transport:timeout:logger:)``).
    static func describes(_ resource: ResourceIdentifier, requested: ResourceIdentifier, fetchedFrom url: URL) -> Bool {
        if resource == requested { return true }
        guard resource.covers(requested), let path = URLComponents(url: resource.url, resolvingAgainstBaseURL: false)?.percentEncodedPath,
            path.contains(where: { $0 != "/" })
        else { return false }
        return metadataURLs(for: resource).first?.absoluteString == url.absoluteString
    }
}
