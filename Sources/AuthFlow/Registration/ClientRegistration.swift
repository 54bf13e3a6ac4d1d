public import Logging

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A client registered with an authorization server: the answer of OAuth 2.0
/// Dynamic Client Registration, RFC 7591 §3.2.1.
///
/// Keep it with the session (it is `Codable`) and reuse it on the next
/// launch: registering on every launch makes the user consent every time.
/// Register again when ``issuer`` is not the provider's any more, when
/// ``isExpired(at:)``, or when the token endpoint answers `invalid_client`
/// (the server forgot the client).
public struct ClientRegistration: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The issuer of the server that registered the client.
    public var issuer: Issuer?
    /// `client_id`.
    public var clientID: String
    /// `client_secret`, for a confidential client. Secret: never logged or described.
    public var clientSecret: String?
    /// `client_id_issued_at`.
    public var issuedAt: Date?
    /// `client_secret_expires_at`; nil when the secret does not expire (0 in the answer).
    public var secretExpiresAt: Date?
    /// `redirect_uris` as registered.
    public var redirectURIs: [URL]
    /// `token_endpoint_auth_method` as registered; `none` when the answer omits it
    /// and none was asked for.
    public var tokenEndpointAuthMethod: String

    /// A registration known from elsewhere.
    public init(
        issuer: Issuer?, clientID: String, clientSecret: String? = nil, issuedAt: Date? = nil, secretExpiresAt: Date? = nil,
        redirectURIs: [URL], tokenEndpointAuthMethod: String = "none"
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.issuedAt = issuedAt
        self.secretExpiresAt = secretExpiresAt
        self.redirectURIs = redirectURIs
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
    }

    /// Reads a registration answer to `request`.
    ///
    /// - Throws: ``AuthFlowError/Category/invalidResponse`` when the answer is
    ///   not a JSON object, has no `client_id`, has members of the wrong type,
    ///   or registered redirect URIs that leave out one that was asked for.
    init(json data: Data, request: ClientRegistrationRequest, issuer: Issuer?) throws {
        guard let object = JSONMemberValue.object(from: data) else {
            throw AuthFlowError.invalidResponse("the client registration response is not a JSON object")
        }
        let reader = MemberReader(object: object, context: "client registration response")
        self.issuer = issuer
        clientID = try reader.requiredString("client_id")
        clientSecret = try reader.string("client_secret")
        issuedAt = try Self.date(reader, "client_id_issued_at")
        secretExpiresAt = try Self.date(reader, "client_secret_expires_at")
        tokenEndpointAuthMethod = try reader.string("token_endpoint_auth_method") ?? request.tokenEndpointAuthMethod
        if let registered = try reader.strings("redirect_uris") {
            let given = Set(registered)
            for uri in request.redirectURIs where !given.contains(uri.absoluteString) {
                throw AuthFlowError.invalidResponse(
                    "the server registered other redirect URIs than asked for: \(uri.absoluteString) is missing")
            }
            redirectURIs = registered.compactMap(URL.init(string:))
        } else {
            redirectURIs = request.redirectURIs
        }
    }

    private static func date(_ reader: MemberReader, _ name: String) throws -> Date? {
        switch reader.object[name] {
        case nil, .null?: return nil
        case .number(let seconds)? where seconds >= 0 && seconds < 1e11: return seconds == 0 ? nil : Date(timeIntervalSince1970: seconds)
        default: throw AuthFlowError.invalidResponse("client registration response: \(name) must be a time in seconds")
        }
    }

    /// Whether the client secret has expired (a public client's registration never does).
    public func isExpired(at now: Date = Date()) -> Bool {
        guard clientSecret != nil, let secretExpiresAt else { return false }
        return secretExpiresAt <= now
    }

    /// The client authentication the registration calls for.
    public var authentication: ClientAuthentication {
        switch (tokenEndpointAuthMethod, clientSecret) {
        case ("client_secret_basic", let secret?): .clientSecretBasic(secret: secret)
        case ("client_secret_post", let secret?): .clientSecretPost(secret: secret)
        default: .none
        }
    }

    /// The client ID and issuer; never the secret.
    public var description: String {
        "ClientRegistration(client_id: \(clientID), issuer: \(issuer?.identifier ?? "-"), secret: \(clientSecret == nil ? "none" : "<redacted>"))"
    }

    /// Registers a client at `metadata`'s `registration_endpoint` (RFC 7591 §3).
    ///
    /// - Parameters:
    ///   - request: the client's metadata.
    ///   - metadata: the authorization server's metadata, with its `registration_endpoint`.
    ///   - initialAccessToken: the token some servers require for
    ///     registration (RFC 7591 §3); secret.
    ///   - transport: the network.
    ///   - timeout: the bound on the request, in seconds.
    ///   - logger: where the registration is logged (never the secret).
    /// - Throws: ``AuthFlowError/Category/configuration`` when the provider
    ///   publishes no registration endpoint, the endpoint is not https
    ///   (loopback hosts excepted) or `request` is not valid for its
    ///   application type; ``AuthFlowError/Category/oauthError`` with the
    ///   server's error (`invalid_redirect_uri`, `invalid_client_metadata`…);
    ///   ``AuthFlowError/Category/invalidResponse`` for an answer that is
    ///   not a registration (see ``ClientRegistration``) or larger than the
    ///   transport's registration limit.
    public static func register(
        _ request: ClientRegistrationRequest, with metadata: ProviderMetadata, initialAccessToken: String? = nil,
        transport: any HTTPTransport = URLSessionTransport(), timeout: TimeInterval = 30, logger: Logger = .authFlow()
    ) async throws -> ClientRegistration {
        guard let endpoint = metadata.registrationEndpoint else {
            throw AuthFlowError(
                .configuration, "the provider publishes no registration_endpoint",
                recovery: "Register the client with the provider by hand and give its client ID.")
        }
        try URLPolicy.requireSecure(endpoint, "registration_endpoint")
        try request.validate()
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "application/json")]
        // The initial access token is a bearer token (RFC 7591 §3).
        if let initialAccessToken { headers.append(AccessTokenAuthorization.field(initialAccessToken, tokenType: "Bearer")) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = try encoder.encode(JSONMemberValue.object(request.members))
        logger.debug("registering the client", metadata: ["url": "\(endpoint.absoluteString)"])
        let response = try await transport.send(
            HTTPTransportRequest(method: "POST", url: endpoint, headers: headers, body: body, timeout: timeout, purpose: .registration))
        let accepted = try TokenEndpoint.requireSuccess(
            response, what: "client registration", secrets: [initialAccessToken].compactMap { $0 })
        let registration = try ClientRegistration(json: accepted.body, request: request, issuer: metadata.issuer)
        logger.info(
            "client registered", metadata: ["client_id": "\(registration.clientID)", "issuer": "\(metadata.issuer?.identifier ?? "-")"])
        return registration
    }
}
