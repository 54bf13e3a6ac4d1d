public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ProviderMetadata {
    /// The places an authorization server's metadata may live when it was
    /// named by a protected resource, in the order RFC 8414 §3.1 and the Model
    /// Context Protocol's authorization specification give: RFC 8414 with the
    /// well-known segment inserted before the issuer's path, then OpenID
    /// Connect Discovery with it inserted, then OpenID Connect Discovery with
    /// it appended. An issuer without a path has two places: RFC 8414, then
    /// OpenID Connect Discovery.
    public static func authorizationServerMetadataURLs(for issuer: Issuer) throws -> [URL] {
        let known = try discoveryURLs(for: issuer)
        guard var components = URLComponents(url: issuer.url, resolvingAgainstBaseURL: false) else { return known.reversed() }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let (openIDAppended, oauthInserted) = (known[0], known[1])
        if path.isEmpty { return [oauthInserted, openIDAppended] }
        components.percentEncodedPath = "/.well-known/openid-configuration" + path
        guard let openIDInserted = components.url else { return [oauthInserted, openIDAppended] }
        return [oauthInserted, openIDInserted, openIDAppended]
    }

    /// Fetches and validates the metadata of an authorization server that a
    /// protected resource named (``ProtectedResourceMetadata/authorizationServers``),
    /// looking in the order of ``authorizationServerMetadataURLs(for:)``.
    ///
    /// The rules are those of ``discover(issuer:tenants:transport:timeout:logger:)``:
    /// the document's `issuer` must equal `authorizationServer` exactly, and
    /// the issuer and every endpoint must be https (or on a loopback host).
    public static func discover(
        authorizationServer: Issuer, transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        logger: Logger = .authFlow()
    ) async throws -> ProviderMetadata {
        try await discover(
            issuer: authorizationServer, candidates: authorizationServerMetadataURLs(for: authorizationServer), tenants: nil,
            transport: transport, timeout: timeout, logger: logger)
    }
}
