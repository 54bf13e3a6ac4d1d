public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Everything an app needs to sign in, built in code or read from an
/// Info.plist-style dictionary.
///
/// ```swift
/// let configuration = try ClientConfiguration(dictionary: Bundle.main.object(forInfoDictionaryKey: "AuthFlow") as? [String: Any] ?? [:])
/// let client = try await OAuthClient(configuration: configuration)
/// ```
public struct ClientConfiguration: Sendable, Equatable {
    /// Where the provider's endpoints come from.
    public enum Provider: Sendable, Equatable {
        /// Discovered from the issuer.
        case issuer(Issuer)
        /// Given explicitly (providers without discovery).
        case endpoints(authorization: URL, token: URL)
        /// Given in full: explicit endpoints with the optional revocation,
        /// userinfo, end-session and JWKS endpoints and the ID-token issuer.
        case metadata(ProviderMetadata)
    }

    /// The provider.
    public var provider: Provider
    /// The client identifier.
    public var clientID: String
    /// The redirect URI (checked against RFC 8252 §7).
    public var redirectURI: URL
    /// Scopes to request.
    public var scopes: [String]

    /// A configuration built in code.
    public init(provider: Provider, clientID: String, redirectURI: URL, scopes: [String] = ["openid"]) throws {
        guard !clientID.isEmpty else { throw AuthFlowError.configuration("ClientID is empty") }
        try RedirectURIPolicy.validate(redirectURI)
        self.provider = provider
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes
    }

    /// Reads `Issuer` (or `AuthorizeEndpoint` and `TokenEndpoint`, with the
    /// optional `RevocationEndpoint`, `UserInfoEndpoint`, `EndSessionEndpoint`,
    /// and `JWKSURI` with `IDTokenIssuer`),
    /// `ClientID`, `RedirectURI` and `Scopes` (an array of strings or one
    /// space-separated string; default `openid`) from an Info.plist-style
    /// dictionary. A missing or malformed key is a
    /// ``AuthFlowError/Category/configuration`` error that names it.
    public init(dictionary: [String: Any]) throws {
        func string(_ key: String) throws -> String? {
            guard let value = dictionary[key] else { return nil }
            guard let text = value as? String, !text.trimmingWhitespace().isEmpty else {
                throw AuthFlowError(
                    .configuration, "\(key) must be a non-empty string",
                    recovery: "Set the \(key) key of the AuthFlow Info.plist dictionary to a non-empty string.")
            }
            return text.trimmingWhitespace()
        }
        func url(_ key: String) throws -> URL? {
            guard let text = try string(key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil else {
                throw AuthFlowError(
                    .configuration, "\(key) is not a URL",
                    recovery: "Set the \(key) key of the AuthFlow Info.plist dictionary to a full URL.")
            }
            return url
        }
        func issuer(_ key: String) throws -> Issuer? {
            guard let text = try string(key) else { return nil }
            do {
                return try Issuer(text)
            } catch let error as AuthFlowError {
                throw AuthFlowError(
                    .configuration, "\(key): \(error.message)",
                    recovery: "Set the \(key) key of the AuthFlow Info.plist dictionary to the provider's issuer URL (https).",
                    remedy: .giveTheIssuerURL)
            }
        }
        func plistError(_ message: String, _ recovery: String) -> AuthFlowError {
            AuthFlowError(.configuration, message, recovery: recovery)
        }
        let provider: Provider
        let explicitKeys = ["RevocationEndpoint", "UserInfoEndpoint", "EndSessionEndpoint", "JWKSURI", "IDTokenIssuer"]
        switch (try issuer("Issuer"), try url("AuthorizeEndpoint"), try url("TokenEndpoint")) {
        case (let issuer?, nil, nil):
            if let key = explicitKeys.first(where: { dictionary[$0] != nil }) {
                throw plistError(
                    "\(key) goes with AuthorizeEndpoint and TokenEndpoint, not with Issuer",
                    "Remove \(key) from the AuthFlow Info.plist dictionary: the issuer's metadata names its endpoints.")
            }
            provider = .issuer(issuer)
        case (nil, let authorization?, let token?):
            if explicitKeys.contains(where: { dictionary[$0] != nil }) {
                guard (dictionary["JWKSURI"] == nil) == (dictionary["IDTokenIssuer"] == nil) else {
                    throw plistError(
                        "JWKSURI and IDTokenIssuer go together", "Add both JWKSURI and IDTokenIssuer to verify ID tokens, or neither.")
                }
                provider = .metadata(
                    ProviderMetadata(
                        issuer: try issuer("IDTokenIssuer"), authorizationEndpoint: authorization, tokenEndpoint: token,
                        revocationEndpoint: try url("RevocationEndpoint"), userinfoEndpoint: try url("UserInfoEndpoint"),
                        endSessionEndpoint: try url("EndSessionEndpoint"), jwksURI: try url("JWKSURI")))
            } else {
                provider = .endpoints(authorization: authorization, token: token)
            }
        case (nil, nil, nil):
            throw plistError(
                "Issuer is missing", "Add the Issuer key (or AuthorizeEndpoint and TokenEndpoint) to the AuthFlow Info.plist dictionary.")
        case (nil, _?, nil):
            throw plistError("TokenEndpoint is missing", "Add the TokenEndpoint key to the AuthFlow Info.plist dictionary.")
        case (nil, nil, _?):
            throw plistError("AuthorizeEndpoint is missing", "Add the AuthorizeEndpoint key to the AuthFlow Info.plist dictionary.")
        default:
            throw plistError(
                "give either Issuer or AuthorizeEndpoint and TokenEndpoint, not both",
                "Keep Issuer (discovery) or the two endpoint keys in the AuthFlow Info.plist dictionary, not both.")
        }
        guard let clientID = try string("ClientID") else {
            throw plistError(
                "ClientID is missing", "Add the ClientID key (the client ID the provider registered) to the AuthFlow Info.plist dictionary."
            )
        }
        guard let redirectURI = try url("RedirectURI") else {
            throw plistError(
                "RedirectURI is missing",
                "Add the RedirectURI key (the redirect URI registered at the provider) to the AuthFlow Info.plist dictionary.")
        }
        var scopes = ["openid"]
        switch dictionary["Scopes"] {
        case nil: break
        case let list as [String]: scopes = list
        case let text as String: scopes = text.split(separator: " ").map(String.init)
        default:
            throw plistError(
                "Scopes must be an array of strings or a space-separated string",
                "Set the Scopes key of the AuthFlow Info.plist dictionary to an array of strings.")
        }
        do {
            try self.init(provider: provider, clientID: clientID, redirectURI: redirectURI, scopes: scopes)
        } catch let error as AuthFlowError {
            throw AuthFlowError(
                .configuration, "RedirectURI: \(error.message)",
                recovery:
                    "Fix the RedirectURI key of the AuthFlow Info.plist dictionary: a private-use scheme, an https URL the app owns, or a loopback http URL."
            )
        }
    }
}

extension OAuthClient {
    /// A public client for `configuration` (discovering its issuer when given one).
    public init(
        configuration: ClientConfiguration, transport: any HTTPTransport = URLSessionTransport(),
        timeout: TimeInterval = 30, logger: Logger = .authFlow()
    ) async throws {
        switch configuration.provider {
        case .issuer(let issuer):
            try await self.init(issuer: issuer, clientID: configuration.clientID, transport: transport, timeout: timeout, logger: logger)
        case .endpoints(let authorization, let token):
            try self.init(
                metadata: ProviderMetadata(authorizationEndpoint: authorization, tokenEndpoint: token),
                clientID: configuration.clientID, transport: transport, timeout: timeout, logger: logger)
        case .metadata(let metadata):
            try self.init(metadata: metadata, clientID: configuration.clientID, transport: transport, timeout: timeout, logger: logger)
        }
    }
}
