public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension ProviderMetadata {
    /// The places a provider's metadata may live, in the order AuthFlow asks:
    /// OpenID Connect Discovery (`{issuer}/.well-known/openid-configuration`),
    /// then RFC 8414 with the well-known segment inserted before the issuer's
    /// path (`{origin}/.well-known/oauth-authorization-server{path}`).
    public static func discoveryURLs(for issuer: Issuer) throws -> [URL] {
        guard var components = URLComponents(url: issuer.url, resolvingAgainstBaseURL: false) else {
            throw AuthFlowError.configuration("issuer is not a valid URL")
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
    /// ``AuthFlowError/Category/issuerMismatch`` (its ``AuthFlowError/recovery``
    /// names the issuer the document gives) and nothing else is called.
    /// The one exception is opt-in: with `tenants`, a document whose issuer is
    /// a multi-tenant template (`…/{tenantid}/…`) that `issuer` instantiates
    /// (Entra ID's `…/common/v2.0`) is accepted, and its ID tokens are then
    /// checked against the template with their own `tid` (see ``IssuerTenants``).
    /// The issuer and every endpoint must be https (or on a loopback host).
    public static func discover(
        issuer: Issuer, tenants: IssuerTenants? = nil, transport: any HTTPTransport = URLSessionTransport(),
        timeout: TimeInterval = 30,
        logger: Logger = .authFlow()
    ) async throws -> ProviderMetadata {
        try await discover(
            issuer: issuer, candidates: discoveryURLs(for: issuer), tenants: tenants, transport: transport, timeout: timeout,
            logger: logger)
    }

    /// Fetches the first metadata document found at `candidates` and
    /// validates it against `issuer` (the rules of
    /// ``discover(issuer:tenants:transport:timeout:logger:)``).
    static func discover(
        issuer: Issuer, candidates: [URL], tenants: IssuerTenants?, transport: any HTTPTransport, timeout: TimeInterval,
        logger: Logger
    ) async throws -> ProviderMetadata {
        let expected = issuer.identifier
        let outcome = try await MetadataFetch.firstDocument(
            at: candidates, purpose: "provider metadata", transport: transport, timeout: timeout, logger: logger
        ) { body, _ in
            // The document's issuer is compared as written before it is read
            // as an Issuer, so a mismatch is reported as one (with its advice)
            // even when the other issuer would not be a valid one.
            let found = JSONMemberValue.object(from: body).flatMap { object -> String? in
                if case .string(let text)? = object["issuer"] { return text }
                return nil
            }
            if let found, !found.isEmpty, !found.hasSameBytes(as: expected) {
                logger.warning(
                    "issuer in metadata differs from the issuer asked for", metadata: ["expected": "\(expected)", "found": "\(found)"])
                guard (try? Issuer(found))?.tenant(in: expected) != nil else {
                    let advice = IssuerAdvice.mismatch(asked: expected, found: found)
                    throw AuthFlowError(
                        .issuerMismatch, "metadata names issuer \(found), expected \(expected)\(advice.why.map { ": \($0)" } ?? "")",
                        recovery: advice.recovery, remedy: advice.remedy)
                }
                guard tenants != nil else {
                    throw AuthFlowError(
                        .issuerMismatch, "metadata names the multi-tenant issuer template \(found) for \(expected)",
                        recovery: IssuerAdvice.multiTenant, remedy: .chooseTenants)
                }
            }
            var metadata = try ProviderMetadata(json: body)
            if found != expected { metadata.issuerTenants = tenants }
            try metadata.validateTransportSecurity()
            return metadata
        }
        switch outcome {
        case .found(let metadata, let url):
            logger.debug("provider metadata loaded", metadata: ["issuer": "\(expected)"])
            if metadata.revocationEndpoint == nil, let oauth = candidates.last, url != oauth {
                return await supplemented(metadata, from: oauth, transport: transport, timeout: timeout, logger: logger)
            }
            return metadata
        case .notFound(let lastStatus):
            throw AuthFlowError(
                .invalidResponse, "no provider metadata found for \(expected) (HTTP \(lastStatus))",
                recovery: "Check the issuer URL. A provider without discovery (GitHub, Zoom) is used with its endpoints instead "
                    + "(ProviderMetadata(issuer:authorizationEndpoint:tokenEndpoint:)).",
                remedy: .checkTheIssuer)
        }
    }

    /// Some providers publish `revocation_endpoint` (and other OAuth
    /// endpoints) only in their RFC 8414 document. When the OpenID document
    /// lacks it, the RFC 8414 one fills the gaps, if it names the same issuer
    /// and passes the same checks; otherwise it is ignored.
    static func supplemented(
        _ metadata: ProviderMetadata, from url: URL, transport: any HTTPTransport, timeout: TimeInterval,
        logger: Logger
    ) async -> ProviderMetadata {
        guard
            let response = try? await transport.send(
                HTTPTransportRequest(
                    method: "GET", url: url, headers: [("Accept", "application/json")], timeout: timeout, purpose: .discovery)),
            response.status == 200, let other = try? ProviderMetadata(json: response.body), other.issuer == metadata.issuer,
            (try? other.validateTransportSecurity()) != nil
        else { return metadata }
        var merged = metadata
        merged.revocationEndpoint = merged.revocationEndpoint ?? other.revocationEndpoint
        merged.introspectionEndpoint = merged.introspectionEndpoint ?? other.introspectionEndpoint
        merged.deviceAuthorizationEndpoint = merged.deviceAuthorizationEndpoint ?? other.deviceAuthorizationEndpoint
        merged.pushedAuthorizationRequestEndpoint = merged.pushedAuthorizationRequestEndpoint ?? other.pushedAuthorizationRequestEndpoint
        merged.backchannelAuthenticationEndpoint = merged.backchannelAuthenticationEndpoint ?? other.backchannelAuthenticationEndpoint
        merged.registrationEndpoint = merged.registrationEndpoint ?? other.registrationEndpoint
        // The document shows what was used: members only the RFC 8414 one has are added.
        merged.document.merge(other.document) { own, _ in own }
        logger.debug("RFC 8414 metadata consulted", metadata: ["revocation_endpoint": "\(merged.revocationEndpoint != nil)"])
        return merged
    }
}
