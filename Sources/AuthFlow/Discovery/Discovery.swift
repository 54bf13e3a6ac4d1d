import Foundation
import Logging

extension ProviderMetadata {
    /// The places a provider's metadata may live, in the order AuthFlow asks:
    /// OpenID Connect Discovery (`{issuer}/.well-known/openid-configuration`),
    /// then RFC 8414 with the well-known segment inserted before the issuer's
    /// path (`{origin}/.well-known/oauth-authorization-server{path}`).
    public static func discoveryURLs(for issuer: URL) throws -> [URL] {
        guard var components = URLComponents(url: issuer, resolvingAgainstBaseURL: false), components.host != nil else {
            throw AuthFlowError.configuration("issuer is not an absolute URL")
        }
        guard components.query == nil, components.fragment == nil else {
            throw AuthFlowError.configuration("issuer must not have a query or fragment")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path + "/.well-known/openid-configuration"
        let openID = components.url
        components.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
        let oauth = components.url
        guard let openID, let oauth else { throw AuthFlowError.configuration("issuer is not a valid URL") }
        return [openID, oauth]
    }

    /// Fetches and validates the metadata of `issuer`.
    ///
    /// The document's `issuer` must equal `issuer` exactly, else
    /// ``AuthFlowError/Category/issuerMismatch`` and nothing else is called.
    /// The issuer and every endpoint must be https (or on a loopback host).
    public static func discover(issuer: URL, transport: any HTTPTransport = URLSessionTransport(),
                                timeout: TimeInterval = 30,
                                logger: Logger = Logger(label: "AuthFlow")) async throws -> ProviderMetadata {
        try URLPolicy.requireSecure(issuer, "issuer")
        let expected = issuer.absoluteString
        var lastStatus = 0
        for url in try discoveryURLs(for: issuer) {
            logger.debug("fetching provider metadata", metadata: ["url": "\(url.absoluteString)"])
            let response = try await transport.send(HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")], timeout: timeout))
            guard response.status == 200 else {
                logger.debug("no metadata here", metadata: ["url": "\(url.absoluteString)", "status": "\(response.status)"])
                lastStatus = response.status
                if response.status == 404 || response.status == 400 || response.status == 405 || response.status == 410 { continue }
                throw AuthFlowError.invalidResponse("metadata request answered HTTP \(response.status)")
            }
            let metadata = try ProviderMetadata(json: response.body)
            guard metadata.issuer == expected else {
                logger.warning("issuer in metadata differs from the issuer asked for", metadata: ["expected": "\(expected)", "found": "\(metadata.issuer ?? "")"])
                throw AuthFlowError(.issuerMismatch, "metadata names issuer \(metadata.issuer ?? "(none)"), expected \(expected)")
            }
            try metadata.validateTransportSecurity()
            logger.debug("provider metadata loaded", metadata: ["issuer": "\(expected)"])
            return metadata
        }
        throw AuthFlowError.invalidResponse("no provider metadata found for \(expected) (HTTP \(lastStatus))")
    }
}
