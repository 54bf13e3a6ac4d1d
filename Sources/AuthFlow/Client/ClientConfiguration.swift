import Foundation
import Logging

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
        case issuer(URL)
        /// Given explicitly (providers without discovery).
        case endpoints(authorization: URL, token: URL)
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

    /// Reads `Issuer` (or `AuthorizeEndpoint` and `TokenEndpoint`),
    /// `ClientID`, `RedirectURI` and `Scopes` (an array of strings or one
    /// space-separated string; default `openid`) from an Info.plist-style
    /// dictionary. A missing or malformed key is a
    /// ``AuthFlowError/Category/configuration`` error that names it.
    public init(dictionary: [String: Any]) throws {
        func string(_ key: String) throws -> String? {
            guard let value = dictionary[key] else { return nil }
            guard let text = value as? String, !text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw AuthFlowError.configuration("\(key) must be a non-empty string")
            }
            return text.trimmingCharacters(in: .whitespaces)
        }
        func url(_ key: String) throws -> URL? {
            guard let text = try string(key) else { return nil }
            guard let url = URL(string: text), url.scheme != nil else { throw AuthFlowError.configuration("\(key) is not a URL") }
            return url
        }
        let provider: Provider
        switch (try url("Issuer"), try url("AuthorizeEndpoint"), try url("TokenEndpoint")) {
        case (let issuer?, nil, nil): provider = .issuer(issuer)
        case (nil, let authorization?, let token?): provider = .endpoints(authorization: authorization, token: token)
        case (nil, nil, nil): throw AuthFlowError.configuration("Issuer is missing (or give AuthorizeEndpoint and TokenEndpoint)")
        case (nil, _?, nil): throw AuthFlowError.configuration("TokenEndpoint is missing")
        case (nil, nil, _?): throw AuthFlowError.configuration("AuthorizeEndpoint is missing")
        default: throw AuthFlowError.configuration("give either Issuer or AuthorizeEndpoint and TokenEndpoint, not both")
        }
        guard let clientID = try string("ClientID") else { throw AuthFlowError.configuration("ClientID is missing") }
        guard let redirectURI = try url("RedirectURI") else { throw AuthFlowError.configuration("RedirectURI is missing") }
        var scopes = ["openid"]
        switch dictionary["Scopes"] {
        case nil: break
        case let list as [String]: scopes = list
        case let text as String: scopes = text.split(separator: " ").map(String.init)
        default: throw AuthFlowError.configuration("Scopes must be an array of strings or a space-separated string")
        }
        do {
            try self.init(provider: provider, clientID: clientID, redirectURI: redirectURI, scopes: scopes)
        } catch let error as AuthFlowError {
            throw AuthFlowError.configuration("RedirectURI: \(error.message)")
        }
    }
}

extension OAuthClient {
    /// A public client for `configuration` (discovering its issuer when given one).
    public init(configuration: ClientConfiguration, transport: any HTTPTransport = URLSessionTransport(),
                timeout: TimeInterval = 30, logger: Logger = Logger(label: "AuthFlow")) async throws {
        switch configuration.provider {
        case .issuer(let issuer):
            try await self.init(issuer: issuer, clientID: configuration.clientID, transport: transport, timeout: timeout, logger: logger)
        case .endpoints(let authorization, let token):
            try self.init(metadata: ProviderMetadata(authorizationEndpoint: authorization, tokenEndpoint: token),
                          clientID: configuration.clientID, transport: transport, timeout: timeout, logger: logger)
        }
    }
}
