public import AuthFlow
package import Foundation

/// What one sign-in with ``AppleSignIn`` asks the provider for, beyond the
/// Info.plist settings: the scopes of this sign-in and the OpenID Connect
/// request parameters that iOS sign-in guides pass (`prompt`, `login_hint`,
/// `acr_values`, `max_age`), ZenKey's `context`, and any other parameter.
///
/// ```swift
/// let options = AppleSignInOptions(
///     scopes: ["openid", "profile", "offline_access"], prompt: ["login"],
///     loginHint: "user@example.com", acrValues: ["urn:example:loa:2"])
/// let session = try await signIn.signIn(using: webAuthenticationSession, options: options)
/// ```
public struct AppleSignInOptions: Sendable, Equatable {
    /// The scopes of this sign-in; nil: the settings' `Scopes`.
    public var scopes: [String]?
    /// `prompt`, such as `login`, `consent` or `select_account`.
    public var prompt: [String]
    /// `login_hint`: the account to preselect.
    public var loginHint: String?
    /// `max_age` in seconds: the ID token's `auth_time` is then checked.
    public var maxAge: Int?
    /// `acr_values`: the authentication context classes asked for.
    public var acrValues: [String]
    /// `context`: what the user is asked to approve, shown by providers that
    /// take it (ZenKey's transaction context).
    public var context: String?
    /// More parameters, in order. Reserved names (``AuthorizationOptions/reservedParameters``)
    /// are refused when the request is made.
    public var additionalParameters: [AuthorizationOptions.Parameter]

    /// Options for one sign-in; every argument is optional.
    public init(
        scopes: [String]? = nil, prompt: [String] = [], loginHint: String? = nil, maxAge: Int? = nil,
        acrValues: [String] = [], context: String? = nil, additionalParameters: [AuthorizationOptions.Parameter] = []
    ) {
        self.scopes = scopes
        self.prompt = prompt
        self.loginHint = loginHint
        self.maxAge = maxAge
        self.acrValues = acrValues
        self.context = context
        self.additionalParameters = additionalParameters
    }

    /// The scopes to request: these options', or `settings`'.
    public func scopes(_ settings: AppleSignInSettings) -> [String] {
        scopes ?? settings.client.scopes
    }

    /// The engine's authorization options for these.
    ///
    /// - Throws: ``AuthFlowError/Category/configuration`` when `context` is
    ///   given twice (here and as an additional parameter) or `scopes` is empty.
    public func authorizationOptions() throws -> AuthorizationOptions {
        if let scopes, scopes.isEmpty {
            throw AuthFlowError(
                .configuration, "the sign-in asks for no scope",
                recovery: "Give at least one scope (openid for OpenID Connect), or leave scopes nil to use the Info.plist Scopes.")
        }
        var parameters = additionalParameters
        if let context {
            guard !parameters.contains(where: { $0.name == "context" }) else {
                throw AuthFlowError(
                    .configuration, "the context parameter is given twice",
                    recovery: "Set context once: as AppleSignInOptions.context or as an additional parameter.")
            }
            parameters.append(.init("context", context))
        }
        return AuthorizationOptions(
            prompt: prompt, loginHint: loginHint, maxAge: maxAge, acrValues: acrValues, additionalParameters: parameters)
    }
}

extension AppleSignInOptions {
    /// The backend handoff: the authorization step alone, without a DPoP key
    /// (the backend's tokens are bound to nothing on this device), returning
    /// the grant unredeemed (``OAuthClient/authorize(redirectURI:scopes:options:userAgent:)``).
    package static func handOff(
        client: OAuthClient, redirectURI: URL, scopes: [String], options: AppleSignInOptions,
        userAgent: some AuthorizationUserAgent
    ) async throws -> AuthorizationGrant {
        var client = client
        client.dpop = nil
        return try await client.authorize(
            redirectURI: redirectURI, scopes: scopes, options: try options.authorizationOptions(), userAgent: userAgent)
    }
}
