/// What a client asks of the backchannel authentication endpoint (OpenID
/// CIBA Core 1.0 §7.1): which user, for which scopes, with which message on
/// both screens.
///
/// ```swift
/// var request = BackchannelAuthenticationRequest(user: .loginHint("alice@example.com"), scopes: ["openid", "profile"])
/// request.bindingMessage = "W4SCT"
/// let pending = try await client.startBackchannelAuthentication(request)
/// ```
public struct BackchannelAuthenticationRequest: Sendable, Equatable {
    /// How the provider finds the user to ask: exactly one hint (§7.1).
    public enum UserHint: Sendable, Equatable, CustomStringConvertible {
        /// `login_hint`: an identifier the provider knows the user by (an
        /// email address, a phone number, a user name).
        case loginHint(String)
        /// `login_hint_token`: a token naming the user, in a format agreed
        /// with the provider (ZenKey's carriers, FAPI-CIBA banks). Secret:
        /// never logged or put in an error.
        case loginHintToken(String)
        /// `id_token_hint`: an ID token the provider issued to this client
        /// earlier. Secret: never logged or put in an error.
        case idTokenHint(String)

        /// The parameter's name, and for `login_hint` its value; tokens are never shown.
        public var description: String {
            switch self {
            case .loginHint(let hint): "login_hint=\(hint)"
            case .loginHintToken: "login_hint_token=<redacted>"
            case .idTokenHint: "id_token_hint=<redacted>"
            }
        }
    }

    /// How the result reaches the client (§5). Push mode is not offered: the
    /// tokens would arrive at the client's notification endpoint from the
    /// network, and FAPI-CIBA forbids it for that reason.
    public enum DeliveryMode: String, Sendable, Equatable {
        /// The client polls the token endpoint (§10.1).
        case poll
        /// The provider calls the client's notification endpoint when the
        /// user has decided, and the client then asks the token endpoint
        /// (§10.2); polling goes on beside it. The client must be registered
        /// for ping mode with `backchannel_client_notification_endpoint`.
        case ping
    }

    /// The user to ask.
    public var user: UserHint
    /// The scopes to ask for; `openid` is added when missing (§7.1 requires it).
    public var scopes: [String]
    /// A short message shown on the consumption device and on the
    /// authentication device, so that the user can tell this request from
    /// another (§7.1). At most ``maximumBindingMessageLength`` characters,
    /// printable, no line breaks.
    public var bindingMessage: String?
    /// A secret the user set up with the provider, when the provider asks
    /// for one (`backchannel_user_code_parameter_supported`). Secret.
    public var userCode: String?
    /// `acr_values`: the authentication levels asked for, in order of preference.
    public var acrValues: [String]
    /// Check that the ID token's `acr` is one of ``acrValues`` (a
    /// ``AuthFlowError/Reason/idToken`` error otherwise). Off by default:
    /// `acr_values` is a wish the provider may not fulfil.
    public var checksACRValues: Bool
    /// `requested_expiry`: how long, in seconds, the request may wait for the user.
    public var requestedExpiry: Int?
    /// Poll (the default) or ping.
    public var deliveryMode: DeliveryMode

    /// The longest binding message accepted: CIBA asks for a short one, and
    /// providers refuse long ones with `invalid_binding_message`.
    public static let maximumBindingMessageLength = 128

    /// A request for `user` and `scopes`, in poll mode.
    public init(
        user: UserHint, scopes: [String] = ["openid"], bindingMessage: String? = nil, acrValues: [String] = [],
        requestedExpiry: Int? = nil, deliveryMode: DeliveryMode = .poll
    ) {
        self.user = user
        self.scopes = scopes
        self.bindingMessage = bindingMessage
        self.acrValues = acrValues
        self.checksACRValues = false
        self.requestedExpiry = requestedExpiry
        self.deliveryMode = deliveryMode
    }

    /// Whether `text` is a binding message both sides accept: 1 to
    /// ``maximumBindingMessageLength`` characters, none a control character
    /// (so no line break). Shared with the embedded provider's endpoint.
    package static func isBindingMessage(_ text: String) -> Bool {
        !text.isEmpty && text.count <= maximumBindingMessageLength
            && !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    }

    /// The scopes sent: ``scopes`` with `openid` first when it was missing.
    var sentScopes: [String] { scopes.contains("openid") ? scopes : ["openid"] + scopes }

    /// The form of §7.1, without client authentication; `notificationToken` in ping mode.
    func form(notificationToken: String?) throws -> [(String, String)] {
        var form: [(String, String)] = [("scope", sentScopes.joined(separator: " "))]
        switch user {
        case .loginHint(let hint):
            try Self.requireText(hint, "login_hint", limit: 512)
            form.append(("login_hint", hint))
        case .loginHintToken(let token):
            try Self.requireText(token, "login_hint_token", limit: 16_384)
            form.append(("login_hint_token", token))
        case .idTokenHint(let token):
            try Self.requireText(token, "id_token_hint", limit: 16_384)
            form.append(("id_token_hint", token))
        }
        if let bindingMessage {
            guard Self.isBindingMessage(bindingMessage) else {
                throw AuthFlowError.configuration(
                    "the binding message must be 1 to \(Self.maximumBindingMessageLength) printable characters on one line")
            }
            form.append(("binding_message", bindingMessage))
        }
        if let userCode {
            try Self.requireText(userCode, "user_code", limit: 512)
            form.append(("user_code", userCode))
        }
        if !acrValues.isEmpty {
            guard acrValues.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(AuthSession.isTokenByte) }) else {
                throw AuthFlowError.configuration("an acr value is empty or has a character outside %x21 / %x23-5B / %x5D-7E")
            }
            form.append(("acr_values", acrValues.joined(separator: " ")))
        }
        if let requestedExpiry {
            guard requestedExpiry > 0 else { throw AuthFlowError.configuration("requested_expiry must be a positive number of seconds") }
            form.append(("requested_expiry", String(requestedExpiry)))
        }
        if let notificationToken { form.append(("client_notification_token", notificationToken)) }
        return form
    }

    private static func requireText(_ value: String, _ name: String, limit: Int) throws {
        guard !value.isEmpty, value.utf8.count <= limit,
            !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw AuthFlowError.configuration("\(name) must be 1 to \(limit) bytes without control characters")
        }
    }
}

extension BackchannelAuthenticationRequest: CustomStringConvertible, CustomReflectable {
    /// The hint (tokens redacted), scopes, mode and binding message; never the user code.
    public var description: String {
        "BackchannelAuthenticationRequest(\(user), scope: \(sentScopes.joined(separator: " ")), mode: \(deliveryMode.rawValue), "
            + "binding_message: \(bindingMessage ?? "-"), user_code: \(userCode == nil ? "no" : "<redacted>"))"
    }

    /// A mirror without the hint's token or the user code, so `dump` cannot show them.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "user": user.description, "scopes": scopes, "bindingMessage": bindingMessage as Any,
                "userCode": userCode == nil ? "none" : "<redacted>", "acrValues": acrValues,
                "checksACRValues": checksACRValues, "requestedExpiry": requestedExpiry as Any,
                "deliveryMode": deliveryMode,
            ], displayStyle: .struct)
    }
}
