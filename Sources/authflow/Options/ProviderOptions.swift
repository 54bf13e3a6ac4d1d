#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow login`'s provider flags beyond `--issuer` and the two required
/// endpoints: the tenants of a multi-tenant issuer, and the endpoints of a
/// provider without discovery.
struct ProviderOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Accept a multi-tenant issuer (a {tenantid} template, as Entra ID's common): any, or tenant IDs.",
            valueName: "any|ID[,ID]"))
    var tenant: String?
    @Option(help: "The revocation endpoint (RFC 7009), used by logout, when the provider's metadata names none.")
    var revocationEndpoint: String?
    @Option(help: "The userinfo endpoint, used by login and userinfo, when the provider's metadata names none.")
    var userinfoEndpoint: String?
    @Option(help: "The end-session endpoint (RP-initiated logout), used by logout, when the provider's metadata names none.")
    var endSessionEndpoint: String?
    @Option(name: .customLong("jwks-uri"), help: "The provider's JWK Set, to verify ID tokens (with --id-token-issuer).")
    var jwksURI: String?
    @Option(help: "The issuer ID tokens must name (with --jwks-uri).")
    var idTokenIssuer: String?

    /// The parsed `--tenant`.
    func tenants() throws -> IssuerTenants? {
        try tenant.map { try IssuerTenants(parsing: $0) }
    }

    private var explicitFlags: [(flag: String, value: String?)] {
        [
            ("--revocation-endpoint", revocationEndpoint), ("--userinfo-endpoint", userinfoEndpoint),
            ("--end-session-endpoint", endSessionEndpoint), ("--jwks-uri", jwksURI), ("--id-token-issuer", idTokenIssuer),
        ]
    }

    func validate(issuer: String?) throws {
        if tenant != nil, issuer == nil { throw ValidationError("--tenant applies to --issuer (a discovered multi-tenant issuer)") }
        do { _ = try tenants() } catch let error as AuthFlowError { throw ValidationError(error.commandLineRecovery ?? error.message) }
        if issuer != nil, let given = explicitFlags.dropFirst(3).first(where: { $0.value != nil }) {
            throw ValidationError(
                "\(given.flag) goes with --authorization-endpoint and --token-endpoint; with --issuer the provider's metadata names its keys and issuer"
            )
        }
        if (jwksURI == nil) != (idTokenIssuer == nil) {
            throw ValidationError(
                "--jwks-uri and --id-token-issuer go together: ID tokens are verified with the keys and must name the issuer")
        }
    }

    /// `metadata` with the tenants of `--tenant` accepted. Only a multi-tenant
    /// issuer (a `{tenantid}` template) takes tenants; for any other issuer
    /// `--tenant` is a usage error, not a setting silently ignored.
    static func pinning(_ tenants: IssuerTenants?, to metadata: ProviderMetadata) throws -> ProviderMetadata {
        guard let tenants else { return metadata }
        guard let issuer = metadata.issuer, issuer.isTemplate else {
            throw ValidationError(
                "--tenant applies only to a multi-tenant issuer (a \(Issuer.tenantPlaceholder) template, as Entra ID's common); "
                    + "\(metadata.issuer?.identifier ?? "this provider") is not one, so leave out --tenant")
        }
        var metadata = metadata
        metadata.issuerTenants = tenants
        return metadata
    }

    /// Discovered metadata with the gaps these flags fill: a revocation,
    /// userinfo or end-session endpoint the document does not name. A flag
    /// that contradicts the document is a configuration error.
    func supplement(_ discovered: ProviderMetadata) throws -> ProviderMetadata {
        let given = try metadata(authorization: discovered.authorizationEndpoint, token: discovered.tokenEndpoint)
        var metadata = discovered
        let pairs: [(String, WritableKeyPath<ProviderMetadata, URL?>)] = [
            ("--revocation-endpoint", \.revocationEndpoint), ("--userinfo-endpoint", \.userinfoEndpoint),
            ("--end-session-endpoint", \.endSessionEndpoint),
        ]
        for (flag, path) in pairs {
            guard let url = given[keyPath: path] else { continue }
            if let own = discovered[keyPath: path], own != url {
                throw AuthFlowError(
                    .configuration, "\(flag) differs from the provider's metadata (\(own.absoluteString))",
                    recovery: "Leave out \(flag): the provider's metadata already names \(own.absoluteString).")
            }
            metadata[keyPath: path] = url
        }
        return metadata
    }

    /// The endpoint URL `flag` gives, nil when it is not given; a
    /// `configuration` error when it is not an absolute URL.
    static func endpoint(_ flag: String, _ value: String?) throws -> URL? {
        guard let value else { return nil }
        guard let url = URL(string: value), url.scheme != nil, url.host != nil else {
            throw AuthFlowError(.configuration, "\(flag) is not an absolute URL", recovery: "Give \(flag) as a full https URL.")
        }
        return url
    }

    /// The explicit-endpoint metadata: the two required endpoints plus what these flags add.
    func metadata(authorization: URL, token: URL) throws -> ProviderMetadata {
        let parse = Self.endpoint
        return ProviderMetadata(
            issuer: try idTokenIssuer.map { try Issuer(commandLine: $0, flag: "--id-token-issuer") }, authorizationEndpoint: authorization,
            tokenEndpoint: token,
            revocationEndpoint: try parse("--revocation-endpoint", revocationEndpoint),
            userinfoEndpoint: try parse("--userinfo-endpoint", userinfoEndpoint),
            endSessionEndpoint: try parse("--end-session-endpoint", endSessionEndpoint),
            jwksURI: try parse("--jwks-uri", jwksURI))
    }
}
#endif
