#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Optional parameters of an authorization request (OAuth 2.0 and OIDC Core §3.1.2.1).
public struct AuthorizationOptions: Sendable, Equatable {
    /// `prompt`, such as `login` or `consent`.
    public var prompt: [String]
    /// `login_hint`.
    public var loginHint: String?
    /// `max_age` in seconds; the ID token's `auth_time` is then checked.
    public var maxAge: Int?
    /// `acr_values`: the authentication context classes asked for, in
    /// order of preference. A provider may answer with another `acr` unless
    /// the request makes it essential: set ``checksACRValues``, or send the
    /// `claims` parameter with `"acr": {"essential": true, "values": [...]}`.
    public var acrValues: [String]
    /// Whether the ID token's `acr` must be one of ``acrValues``: when true,
    /// a token with another `acr`, or none, is refused with
    /// ``AuthFlowError/Category/idTokenInvalid`` (reason
    /// ``AuthFlowError/Reason/authenticationContextClass``). Default false.
    public var checksACRValues: Bool = false
    /// `ui_locales`.
    public var uiLocales: [String]
    /// `response_mode` (OAuth 2.0 Multiple Response Type Encoding Practices,
    /// Form Post Response Mode): how the provider returns the response.
    /// `nil` leaves the provider's default (the query, for the code flow).
    /// ``ResponseMode/formPost`` makes the browser POST the response to the
    /// redirect URI, which the loopback listener then accepts.
    public var responseMode: ResponseMode?
    /// More parameters, in order. Reserved names are refused by
    /// ``OAuthClient/authorizationRequest(redirectURI:scopes:options:)``.
    public var additionalParameters: [Parameter]

    /// A name and value for ``additionalParameters``.
    public struct Parameter: Sendable, Equatable, Codable {
        /// The parameter's name.
        public var name: String
        /// Its value, form-encoded when the URL is built.
        public var value: String
        /// A parameter `name=value`.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A `response_mode` value.
    public struct ResponseMode: RawRepresentable, Sendable, Equatable, Hashable, Codable {
        /// The value sent, such as `form_post`.
        public var rawValue: String
        /// Creates a response mode.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `query`: the response in the redirect URI's query (the code flow's default).
        public static let query = ResponseMode(rawValue: "query")
        /// `form_post`: the response POSTed as an `application/x-www-form-urlencoded` body.
        public static let formPost = ResponseMode(rawValue: "form_post")
    }

    /// Parameters that AuthFlow sets itself and that cannot be overridden.
    public static let reservedParameters: Set<String> = [
        "response_type", "client_id", "redirect_uri", "state", "nonce",
        "code_challenge", "code_challenge_method", "scope",
    ]

    /// Creates options.
    public init(
        prompt: [String] = [], loginHint: String? = nil, maxAge: Int? = nil, acrValues: [String] = [],
        uiLocales: [String] = [], responseMode: ResponseMode? = nil, additionalParameters: [Parameter] = []
    ) {
        self.responseMode = responseMode
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.uiLocales = uiLocales
        self.additionalParameters = additionalParameters
    }

    /// The `response_mode` these options ask for, whether set with
    /// ``responseMode`` or as an additional parameter.
    var effectiveResponseMode: ResponseMode? {
        responseMode ?? additionalParameters.last { $0.name == "response_mode" }.map { ResponseMode(rawValue: $0.value) }
    }

    /// The `acr` values the ID token must name one of: the `values` (or
    /// `value`) of an essential `acr` in the `claims` parameter's `id_token`
    /// member (OIDC Core §5.5.1.1), else ``acrValues`` when
    /// ``checksACRValues``; nil when neither asks for a check.
    func requiredACRValues() throws -> [String]? {
        if let claims = additionalParameters.last(where: { $0.name == "claims" }),
            let request = JSONMemberValue.object(from: Data(claims.value.utf8)),
            case .object(let idToken)? = request["id_token"], case .object(let acr)? = idToken["acr"],
            acr["essential"] == .bool(true)
        {
            let values = acr["values"]?.arrayValue?.compactMap(\.stringValue) ?? acr["value"]?.stringValue.map { [$0] } ?? []
            if !values.isEmpty { return values }
        }
        guard checksACRValues else { return nil }
        guard !acrValues.isEmpty else {
            throw AuthFlowError.configuration("checksACRValues is set but acrValues is empty: give the acr values the ID token must name")
        }
        return acrValues
    }

    /// The query parameters these options add, in order.
    func parameters() throws -> [(String, String)] {
        var pairs: [(String, String)] = []
        if !prompt.isEmpty { pairs.append(("prompt", prompt.joined(separator: " "))) }
        if let loginHint { pairs.append(("login_hint", loginHint)) }
        if let maxAge {
            guard maxAge >= 0 else { throw AuthFlowError.configuration("max_age must not be negative") }
            pairs.append(("max_age", String(maxAge)))
        }
        if !acrValues.isEmpty { pairs.append(("acr_values", acrValues.joined(separator: " "))) }
        if !uiLocales.isEmpty { pairs.append(("ui_locales", uiLocales.joined(separator: " "))) }
        if let responseMode {
            guard !responseMode.rawValue.isEmpty else { throw AuthFlowError.configuration("response_mode is empty") }
            pairs.append(("response_mode", responseMode.rawValue))
        }
        var seen = Set(pairs.map(\.0))
        for parameter in additionalParameters {
            guard !parameter.name.isEmpty else { throw AuthFlowError.configuration("a parameter name is empty") }
            guard !AuthorizationOptions.reservedParameters.contains(parameter.name) else {
                throw AuthFlowError(
                    .configuration, "parameter \(parameter.name) is set by AuthFlow and cannot be overridden",
                    recovery: parameter.name == "scope"
                        ? "Give scopes as the scopes argument, not as a parameter." : "Remove the \(parameter.name) parameter.",
                    remedy: parameter.name == "scope" ? .passScopesSeparately : nil)
            }
            guard seen.insert(parameter.name).inserted else {
                throw AuthFlowError.configuration("parameter \(parameter.name) is given twice")
            }
            if parameter.name == "context" { try Self.checkContext(parameter.value) }
            pairs.append((parameter.name, parameter.value))
        }
        return pairs
    }
}
