public import AuthFlow
public import Foundation

/// The sign-in settings of an Apple app, read from the `AuthFlow` dictionary
/// of its Info.plist: everything ``ClientConfiguration`` reads, plus the
/// Apple-specific keys below. Platform-neutral, so the rules are tested
/// everywhere; the Apple layer only reads the bundle.
///
/// | Key | Value |
/// |---|---|
/// | `Issuer`, `ClientID`, `Scopes` | as in ``ClientConfiguration/init(dictionary:)`` |
/// | `AuthorizeEndpoint`, `TokenEndpoint`, `RevocationEndpoint`, `UserInfoEndpoint`, `EndSessionEndpoint`, `JWKSURI`, `IDTokenIssuer` | explicit endpoints instead of `Issuer`, as in ``ClientConfiguration/init(dictionary:)`` |
/// | `RedirectURI` | the redirect URI: https (universal link) or a private-use scheme |
/// | `FallbackRedirectURI` | a private-use scheme redirect used where https callbacks are not available (before iOS 17.4 / macOS 14.4) |
/// | `PostLogoutRedirectURI` | where the provider's end-session page returns to |
/// | `EphemeralBrowserSession` | `true` for a private browser session (no shared cookies, no single sign-on); default `false` |
/// | `KeychainAccessGroup` | a Keychain access group shared with app extensions; needs `AppGroup` |
/// | `AppGroup` | the app group whose container holds the lock that lets the app and its extensions take turns refreshing |
/// | `BiometricProtection` | `BiometryCurrentSet` or `UserPresence`: the stored session (and a Secure Enclave DPoP key) opens only after Face ID, Touch ID or the passcode (``BiometricProtection``); default none |
/// | `BiometricReuseSeconds` | how long one authentication in the app is reused by everything the session does, 0–300; default 60 |
/// | `BiometricLockScreenReuseSeconds` | how long a Face ID / Touch ID unlock on the lock screen opens the session without a prompt, 0–300; default 0 |
/// | `DPoP` | `true` to bind the tokens to a DPoP key (RFC 9449): a Secure Enclave key where the device has one, a software key otherwise (``AppleDPoPKeyChoice``); default `false` |
public struct AppleSignInSettings: Sendable, Equatable {
    /// The provider, client, scopes and the primary redirect URI.
    public var client: ClientConfiguration
    /// The https redirect and its custom-scheme fallback.
    public var redirects: RedirectChoice
    /// Where the end-session page returns to, if the provider should return.
    public var postLogoutRedirectURI: URL?
    /// Whether sign-in and sign-out use a private browser session.
    public var prefersEphemeralBrowserSession: Bool
    /// The Keychain access group shared with extensions.
    public var keychainAccessGroup: String?
    /// The app group identifier shared with extensions.
    public var appGroup: String?
    /// Whether sign-in binds the tokens to a DPoP key (the `DPoP` key; see
    /// ``AppleDPoPKeyChoice`` for which key and where it is kept).
    public var usesDPoP: Bool
    /// Face ID / Touch ID protection of the stored session (the
    /// `BiometricProtection` and `BiometricReuseSeconds` keys); nil: none.
    public var biometricProtection: BiometricProtection?

    /// Reads the settings; a malformed key is a `configuration` error naming it.
    public init(dictionary: [String: Any]) throws {
        let client = try ClientConfiguration(dictionary: dictionary)
        func url(_ key: String) throws -> URL? {
            guard let value = dictionary[key] else { return nil }
            guard let text = value as? String, let url = URL(string: text.trimmingCharacters(in: .whitespaces)), url.scheme != nil else {
                throw AuthFlowError(
                    .configuration, "\(key) is not a URL", recovery: "Set \(key) in the AuthFlow Info.plist dictionary to a URL string.")
            }
            return url
        }
        func string(_ key: String) throws -> String? {
            guard let value = dictionary[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else {
                throw AuthFlowError(
                    .configuration, "\(key) must be a non-empty string", recovery: "Fix \(key) in the AuthFlow Info.plist dictionary.")
            }
            return text
        }
        let fallback = try url("FallbackRedirectURI")
        let redirects: RedirectChoice
        if client.redirectURI.scheme?.lowercased() == "https" {
            redirects = try RedirectChoice(https: client.redirectURI, customScheme: fallback)
        } else {
            guard fallback == nil else {
                throw AuthFlowError(
                    .configuration, "FallbackRedirectURI is only used with an https RedirectURI",
                    recovery:
                        "Remove FallbackRedirectURI, or make RedirectURI the https redirect and FallbackRedirectURI the custom-scheme one.")
            }
            redirects = try RedirectChoice(https: nil, customScheme: client.redirectURI)
        }
        let postLogout = try url("PostLogoutRedirectURI")
        if let postLogout { try RedirectURIPolicy.validate(postLogout) }
        func flag(_ key: String) throws -> Bool {
            switch dictionary[key] {
            case nil: return false
            case let flag as Bool: return flag
            default:
                throw AuthFlowError(.configuration, "\(key) must be a Boolean", recovery: "Set \(key) to YES or NO.")
            }
        }
        let ephemeral = try flag("EphemeralBrowserSession")
        let dpop = try flag("DPoP")
        self.client = client
        self.redirects = redirects
        self.postLogoutRedirectURI = postLogout
        self.prefersEphemeralBrowserSession = ephemeral
        self.keychainAccessGroup = try string("KeychainAccessGroup")
        self.appGroup = try string("AppGroup")
        if keychainAccessGroup != nil, appGroup == nil {
            // A shared item without the shared lease: the app and an extension
            // would each refresh with the same refresh token, and with a
            // provider that rotates it the second refresh signs the user out.
            throw AuthFlowError(
                .configuration, "KeychainAccessGroup is set without AppGroup",
                recovery:
                    "Add the app group that the app and its extensions share as AppGroup in the AuthFlow Info.plist dictionary: its container holds the lease that makes them refresh one at a time."
            )
        }
        self.usesDPoP = dpop
        self.biometricProtection = try BiometricProtection(dictionary: dictionary)
    }

    /// The Keychain item identity: issuer (or token endpoint) and client ID,
    /// known without the network so a relaunch can restore offline.
    public var credentialKey: CredentialKey {
        switch client.provider {
        case .issuer(let issuer): CredentialKey(issuer: issuer.identifier, clientID: client.clientID)
        case .endpoints(_, let token): CredentialKey(issuer: token.absoluteString, clientID: client.clientID)
        case .metadata(let metadata):
            CredentialKey(issuer: metadata.issuer?.identifier ?? metadata.tokenEndpoint.absoluteString, clientID: client.clientID)
        }
    }
}
