/// An OAuth 2.0 token exchange request (RFC 8693 §2.1): trade a security
/// token the client holds (the subject token, and for delegation an actor
/// token) for another one, such as an access token for a second API.
///
/// ```swift
/// let request = TokenExchangeRequest(
///     subject: .init(credentials.accessToken, type: .accessToken),
///     audiences: ["https://billing.example.com"])
/// let issued = try await client.exchangeToken(request)
/// ```
///
/// The request is sent to the client's token endpoint with its client
/// authentication (``OAuthClient/exchangeToken(_:)``). Its targets are only
/// those named here: the client's own ``OAuthClient/resource`` is not added.
public struct TokenExchangeRequest: Sendable, Equatable, CustomStringConvertible {
    /// A security token presented in the request, with its type.
    public struct SecurityToken: Sendable, Equatable, CustomStringConvertible {
        /// The token. Secret: never in a description, log or error.
        public var value: String
        /// What kind of token ``value`` is.
        public var type: TokenTypeIdentifier

        /// A token of `type`.
        public init(_ value: String, type: TokenTypeIdentifier) {
            self.value = value
            self.type = type
        }

        /// The type only; the token is redacted.
        public var description: String { "SecurityToken(type: \(type), value: <redacted>)" }
    }

    /// The token that stands for the party on whose behalf the new token is
    /// requested (`subject_token`, `subject_token_type`).
    public var subject: SecurityToken
    /// The token of the party that acts for the subject (`actor_token`,
    /// `actor_token_type`), for delegation; `nil` for impersonation.
    public var actor: SecurityToken?
    /// The type of token wanted (`requested_token_type`); `nil` leaves it to
    /// the server. When set, the response must name exactly this type.
    public var requestedTokenType: TokenTypeIdentifier?
    /// Logical names of the services the token is for (`audience`, repeated).
    public var audiences: [String]
    /// URIs of the resources the token is for (`resource`, repeated; RFC 8707).
    public var resources: [ResourceIdentifier]
    /// The scopes wanted (`scope`); none when empty.
    public var scopes: [String]

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - subject: the token to exchange, with its type.
    ///   - actor: the acting party's token, for delegation.
    ///   - requestedTokenType: the type of token wanted; `nil` leaves it to the server.
    ///   - audiences: the services the token is for.
    ///   - resources: the resources the token is for.
    ///   - scopes: the scopes wanted.
    public init(
        subject: SecurityToken, actor: SecurityToken? = nil, requestedTokenType: TokenTypeIdentifier? = nil, audiences: [String] = [],
        resources: [ResourceIdentifier] = [], scopes: [String] = []
    ) {
        self.subject = subject
        self.actor = actor
        self.requestedTokenType = requestedTokenType
        self.audiences = audiences
        self.resources = resources
        self.scopes = scopes
    }

    /// The types and targets; the tokens are redacted.
    public var description: String {
        var parts = ["subject_token_type: \(subject.type)"]
        if let actor { parts.append("actor_token_type: \(actor.type)") }
        if let requestedTokenType { parts.append("requested_token_type: \(requestedTokenType)") }
        if !audiences.isEmpty { parts.append("audience: \(audiences.joined(separator: " "))") }
        if !resources.isEmpty { parts.append("resource: \(resources.map(\.description).joined(separator: " "))") }
        if !scopes.isEmpty { parts.append("scope: \(scopes.joined(separator: " "))") }
        return "TokenExchangeRequest(\(parts.joined(separator: ", ")))"
    }

    /// The `grant_type` of a token exchange.
    static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"

    /// The form parameters, without client authentication.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` for an empty token,
    ///   a token with a control or non-ASCII character, an empty audience or scope.
    func form() throws -> [(String, String)] {
        try Self.check(subject.value, "subject token")
        var form: [(String, String)] = [
            ("grant_type", Self.grantType), ("subject_token", subject.value), ("subject_token_type", subject.type.rawValue),
        ]
        if let actor {
            try Self.check(actor.value, "actor token")
            form += [("actor_token", actor.value), ("actor_token_type", actor.type.rawValue)]
        }
        if let requestedTokenType { form.append(("requested_token_type", requestedTokenType.rawValue)) }
        for audience in audiences {
            guard !audience.isEmpty else { throw AuthFlowError.configuration("a token exchange audience is empty") }
            form.append(("audience", audience))
        }
        form += resources.map { ("resource", $0.description) }
        if !scopes.isEmpty {
            guard !scopes.contains(where: { $0.isEmpty || $0.contains(" ") }) else {
                throw AuthFlowError.configuration("a token exchange scope is empty or contains a space")
            }
            form.append(("scope", scopes.joined(separator: " ")))
        }
        return form
    }

    /// A token sent in a form is printable ASCII (RFC 6749 Appendix A's
    /// VSCHAR, which covers JWTs and base64url SAML): anything else is a
    /// mistake of the caller's, refused before it is sent.
    private static func check(_ token: String, _ name: String) throws {
        guard !token.isEmpty else { throw AuthFlowError.configuration("the \(name) is empty") }
        guard token.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw AuthFlowError.configuration("the \(name) has characters outside printable ASCII")
        }
    }
}
