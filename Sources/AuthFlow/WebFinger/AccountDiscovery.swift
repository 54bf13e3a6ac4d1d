public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension Issuer {
    /// Finds the issuer that signs in `account` by asking the account's host
    /// (OpenID Connect Discovery 1.0 §2, WebFinger, RFC 7033).
    ///
    /// `account` is what a person types: `alice@example.com`, an
    /// `acct:` URI or an https URL, normalised by ``WebFingerResource``. The
    /// host is asked over https (plain http only for a loopback host) at
    /// `/.well-known/webfinger`, with the `resource` and the issuer `rel`. A
    /// redirect is followed (at most three) only to another https URL; the
    /// answer is bounded like a discovery document (``ResponseLimits/discovery``)
    /// and in time by `timeout`. The issuer is the `href` of the answer's first
    /// link with the relation ``WebFingerResource/issuerRelation``.
    ///
    /// The issuer is only a name: discover it with
    /// ``ProviderMetadata/discover(issuer:tenants:transport:timeout:logger:)``,
    /// or use ``ProviderMetadata/discover(account:tenants:transport:timeout:logger:)``,
    /// which does both.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` (remedy
    ///   ``AuthFlowError/Remedy/giveAnAccount``) for an account that cannot be
    ///   normalised; ``AuthFlowError/Category/invalidResponse`` for an answer
    ///   that is not a JSON object, is too large, redirects to plain http or
    ///   too often, answers a status other than 200, names no issuer link
    ///   (remedy ``AuthFlowError/Remedy/giveTheIssuerInstead``), or names an
    ///   issuer that is not https (loopback hosts excepted);
    ///   ``AuthFlowError/Category/timeout`` or ``AuthFlowError/Category/network``
    ///   from the transport.
    public static func discover(
        account: String, transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30,
        logger: Logger = .authFlow()
    ) async throws -> Issuer {
        let resource = try WebFingerResource(account)
        let issuer = try await WebFingerLookup.issuer(for: resource, transport: transport, timeout: timeout, logger: logger)
        logger.debug("WebFinger named the issuer", metadata: ["host": "\(resource.host)", "issuer": "\(issuer)"])
        return issuer
    }
}

extension ProviderMetadata {
    /// Finds the provider that signs in `account` and fetches its metadata:
    /// ``Issuer/discover(account:transport:timeout:logger:)``, then
    /// ``discover(issuer:tenants:transport:timeout:logger:)`` with the issuer
    /// found, whose checks all apply (the document must name that issuer
    /// exactly; every endpoint must be https).
    ///
    /// ```swift
    /// let metadata = try await ProviderMetadata.discover(account: "alice@example.com")
    /// let client = try OAuthClient(metadata: metadata, clientID: "com.example.app")
    /// ```
    ///
    /// - Throws: the errors of both.
    public static func discover(
        account: String, tenants: IssuerTenants? = nil, transport: any HTTPTransport = URLSessionTransport(),
        timeout: TimeInterval = 30, logger: Logger = .authFlow()
    ) async throws -> ProviderMetadata {
        let issuer = try await Issuer.discover(account: account, transport: transport, timeout: timeout, logger: logger)
        return try await discover(issuer: issuer, tenants: tenants, transport: transport, timeout: timeout, logger: logger)
    }
}
