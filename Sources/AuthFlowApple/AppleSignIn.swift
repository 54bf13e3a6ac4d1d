#if canImport(Security) && (os(iOS) || os(macOS) || os(visionOS))
public import AuthFlow
public import AuthenticationServices
public import Foundation
public import Logging

/// Sign-in, restore and sign-out for an Apple app in one call each, from the
/// `AuthFlow` dictionary of the Info.plist (``AppleSignInSettings``).
///
/// ```swift
/// let signIn = try AppleSignIn()                       // reads Info.plist
/// var session = try await signIn.restore()             // offline, from the Keychain
/// session = try await signIn.signIn(using: webAuthenticationSession)
/// try await signIn.signOut(session, using: webAuthenticationSession)
/// ```
///
/// Sign-in uses the https redirect URI where the system delivers https
/// callbacks (iOS 17.4, macOS 14.4, visionOS 1.1) and the custom-scheme
/// fallback before. Sign-out follows the engine's rules (revoke, then delete
/// the Keychain item, even when the provider cannot be reached) and is then
/// done; the provider's end-session page opens afterwards only when it can
/// return to the app (``AppleSignOutResult``).
///
/// With the `DPoP` setting, the tokens are bound to a Secure Enclave key
/// where the device has one (a software key otherwise); its handle is kept
/// in the Keychain beside the session (``AppleDPoPKeyChoice``).
public struct AppleSignIn: Sendable {
    /// The settings.
    public let settings: AppleSignInSettings
    /// Where the session is kept.
    public let store: KeychainCredentialStore
    /// The HTTP transport.
    public let transport: any HTTPTransport
    /// Where the engine logs (discovery, requests, sign-in; never a secret).
    public let logger: Logger

    /// Sign-in for `settings`, keeping the session in `store` (by default the
    /// Keychain item, access group and app group the settings name), logging to `logger`.
    public init(
        settings: AppleSignInSettings, store: KeychainCredentialStore? = nil,
        transport: any HTTPTransport = URLSessionTransport(), logger: Logger = .authFlow()
    ) {
        self.settings = settings
        self.store = store ?? KeychainCredentialStore(settings: settings)
        self.transport = transport
        self.logger = logger
    }

    /// Sign-in configured by the `AuthFlow` dictionary of `bundle`'s Info.plist.
    public init(bundle: Bundle = .main, logger: Logger = .authFlow()) throws {
        guard let dictionary = bundle.object(forInfoDictionaryKey: "AuthFlow") as? [String: Any] else {
            throw AuthFlowError(
                .configuration, "the Info.plist has no AuthFlow dictionary",
                recovery: "Add an AuthFlow dictionary with Issuer, ClientID and RedirectURI to the app's Info.plist.")
        }
        self.init(settings: try AppleSignInSettings(dictionary: dictionary), logger: logger)
    }

    /// The session saved in the Keychain, without the network; nil when
    /// nobody is signed in.
    ///
    /// A session bound to a Secure Enclave DPoP key is bound to it again,
    /// from the key handle kept beside the record
    /// (``AppleDPoPKeyChoice/restoreSession(from:secureEnclaveHandle:transport:logger:openSecureEnclaveKey:)``).
    ///
    /// With ``AppleSignInSettings/biometricProtection`` this is where Face
    /// ID, Touch ID or the passcode is asked for (at most once per in-app
    /// reuse window); call it in the foreground, and again when an
    /// operation fails with ``BiometricFailure/locked``.
    ///
    /// - Throws: ``AuthFlowError/Category/reauthenticationRequired`` when the
    ///   session's DPoP key handle is missing or this device's Secure Enclave
    ///   cannot open it: the tokens are unusable without their key.
    public func restore() async throws -> AuthSession? {
        let store = store
        let transport = transport
        let logger = logger
        // The foreground call: the one place (with sign-in) where a
        // biometric-protected session may show Face ID or Touch ID.
        return try await BiometricInteraction.allowingPrompt {
            try await AppleDPoPKeyChoice.restoreSession(
                from: store, secureEnclaveHandle: try store.readSecureEnclaveDPoPKeyHandle(),
                transport: transport, logger: logger, openSecureEnclaveKey: { try Self.openSecureEnclaveKey($0, store: store) })
        }
    }

    /// Signs in through `presenter` and saves the session to the Keychain.
    ///
    /// With ``AppleSignInSettings/usesDPoP`` the tokens are bound to a new
    /// DPoP key: a Secure Enclave key where ``SecureEnclaveDPoPKey/isAvailable``
    /// (its handle is saved before the session record), a software
    /// ``DPoPKey`` kept in the record otherwise
    /// (``AppleDPoPKeyChoice/startSession(client:store:makeSecureEnclaveKey:storeSecureEnclaveHandle:authorize:)``).
    ///
    /// `options` sets this sign-in's scopes and request parameters
    /// (`prompt`, `login_hint`, `acr_values`, `max_age`, `context`, others).
    public func signIn(
        using presenter: some WebAuthenticationPresenter, options: AppleSignInOptions = AppleSignInOptions()
    ) async throws -> AuthSession {
        let redirectURI = try settings.redirects.redirectURI(httpsCallbacksAvailable: WebAuthenticationFailure.httpsCallbacksAvailable)
        let scopes = options.scopes(settings)
        let authorizationOptions = try options.authorizationOptions()
        try store.checkKeychainAccess()
        let client = try await OAuthClient(configuration: settings.client, transport: transport, logger: logger)
        let choice = AppleDPoPKeyChoice(dpop: settings.usesDPoP, secureEnclaveAvailable: Self.secureEnclaveAvailable)
        let protection = settings.biometricProtection
        // A foreground call: a Secure Enclave key behind biometric protection
        // may ask for the user for the token request's proof.
        return try await BiometricInteraction.allowingPrompt {
            try await choice.startSession(
                client: client, store: store, makeSecureEnclaveKey: { try Self.makeSecureEnclaveKey(protection, store: store) },
                storeSecureEnclaveHandle: { handle in
                    if let handle {
                        try store.writeSecureEnclaveDPoPKeyHandle(handle)
                    } else {
                        try store.deleteSecureEnclaveDPoPKeyHandle()
                    }
                },
                authorize: { client in
                    try await client.signIn(redirectURI: redirectURI, scopes: scopes, options: authorizationOptions, userAgent: presenter)
                })
        }
    }

    /// Signs in through `presenter` and stops before redeeming the code: the
    /// returned grant holds the authorization code and its PKCE verifier
    /// (and the nonce, redirect URI and client ID) for the app's backend,
    /// which redeems it as a confidential client with
    /// ``OAuthClient/exchange(_:)`` and keeps the tokens. Nothing is saved
    /// on the device and no DPoP key is bound (the backend's tokens are not
    /// this device's). Send it over TLS to your own server only; it is a
    /// secret until redeemed, within the code's lifetime (often a minute).
    ///
    /// See "Handing the sign-in to your server".
    public func authorizeForBackend(
        using presenter: some WebAuthenticationPresenter, options: AppleSignInOptions = AppleSignInOptions()
    ) async throws -> AuthorizationGrant {
        let redirectURI = try settings.redirects.redirectURI(httpsCallbacksAvailable: WebAuthenticationFailure.httpsCallbacksAvailable)
        let client = try await OAuthClient(configuration: settings.client, transport: transport, logger: logger)
        return try await AppleSignInOptions.handOff(
            client: client, redirectURI: redirectURI, scopes: options.scopes(settings), options: options, userAgent: presenter)
    }

    /// Signs out. The local sign-out always completes first: the engine
    /// revokes the tokens and deletes the Keychain item, then the Secure
    /// Enclave DPoP key handle beside it is deleted. Only then, and only
    /// when it can finish — the provider has an end-session page, a
    /// `PostLogoutRedirectURI` is configured and sign-in uses a shared
    /// browser session — the end-session page opens in `presenter`.
    /// A user who closes that page, or a page that fails, leaves the
    /// sign-out complete: the result says what happened to the browser step
    /// (``AppleSignOutResult/browserStep``), nothing is thrown for it.
    ///
    /// - Throws: only when the Keychain item cannot be deleted (the user is
    ///   then not signed out on this device).
    @discardableResult
    public func signOut(_ session: AuthSession, using presenter: some WebAuthenticationPresenter) async throws -> AppleSignOutResult {
        let store = store
        let postLogout = settings.postLogoutRedirectURI
        return try await AppleSignOutSteps.run(
            postLogoutRedirectURI: postLogout, prefersEphemeralSession: presenter.prefersEphemeralSession,
            localSignOut: {
                // A foreground call: revocation may need the protected session.
                try await BiometricInteraction.allowingPrompt { try await session.signOut(postLogoutRedirectURI: postLogout) }
            },
            deleteKeyHandle: { try store.deleteSecureEnclaveDPoPKeyHandle() },
            present: { url, callback in try await presenter.present(url, callback: callback) })
    }
}

extension AppleSignIn {
    /// The providers of the `AuthFlow` dictionary of `bundle`'s Info.plist:
    /// its `Providers` array, or the dictionary itself for one provider
    /// (``AppleSignInProviders``). Make an ``AppleSignIn`` for the one the
    /// user chooses with ``init(provider:logger:)``.
    public static func providers(bundle: Bundle = .main) throws -> AppleSignInProviders {
        guard let dictionary = bundle.object(forInfoDictionaryKey: "AuthFlow") as? [String: Any] else {
            throw AuthFlowError(
                .configuration, "the Info.plist has no AuthFlow dictionary",
                recovery: "Add an AuthFlow dictionary with Issuer, ClientID and RedirectURI (or Providers) to the app's Info.plist.")
        }
        return try AppleSignInProviders(dictionary: dictionary)
    }

    /// Sign-in with one of the app's providers, its session in its own Keychain item.
    public init(provider: AppleSignInProviders.Provider, logger: Logger = .authFlow()) {
        self.init(settings: provider.settings, logger: logger)
    }

    /// The first provider with a saved session, and that session, without
    /// the network (each provider's Keychain item is read in the
    /// Info.plist's order; only an existing item can ask for Face ID); nil
    /// when nobody is signed in with any of them.
    public static func restore(
        from providers: AppleSignInProviders, logger: Logger = .authFlow()
    ) async throws -> (signIn: AppleSignIn, session: AuthSession)? {
        for provider in providers.all {
            let signIn = AppleSignIn(provider: provider, logger: logger)
            if let session = try await signIn.restore() { return (signIn, session) }
        }
        return nil
    }

    /// Whether this device can hold a DPoP key in its Secure Enclave.
    static var secureEnclaveAvailable: Bool {
        #if canImport(CryptoKit) && !os(tvOS)
        SecureEnclaveDPoPKey.isAvailable
        #else
        false
        #endif
    }

    /// A new Secure Enclave DPoP key (behind `protection`, if any) and its handle.
    static func makeSecureEnclaveKey(
        _ protection: BiometricProtection?, store: KeychainCredentialStore
    ) throws -> (key: any DPoPSigningKey, handle: Data) {
        #if canImport(CryptoKit) && !os(tvOS)
        let made = try protection.map(SecureEnclaveDPoPKey.init(biometricProtection:)) ?? SecureEnclaveDPoPKey()
        // Proofs open the key with the session's one context (one prompt per window).
        let key = try SecureEnclaveDPoPKey(dataRepresentation: made.dataRepresentation, contexts: store.authenticationContexts)
        return (key, key.dataRepresentation)
        #else
        throw AuthFlowError(.configuration, "this platform has no Secure Enclave DPoP key", recovery: "Use a software DPoPKey.")
        #endif
    }

    /// The session's Secure Enclave DPoP key, from the handle kept beside the record.
    static func openSecureEnclaveKey(_ handle: Data, store: KeychainCredentialStore) throws -> any DPoPSigningKey {
        #if canImport(CryptoKit) && !os(tvOS)
        try SecureEnclaveDPoPKey(dataRepresentation: handle, contexts: store.authenticationContexts)
        #else
        throw AuthFlowError(
            .configuration, "this platform has no Secure Enclave DPoP key", recovery: "Sign in again.", remedy: .signInAgain)
        #endif
    }
}

extension AppleSignIn {
    /// Signs in from a window (UIKit and AppKit apps), in the browser session
    /// kind the settings ask for.
    @MainActor
    public func signIn(presentingFrom anchor: ASPresentationAnchor, options: AppleSignInOptions = AppleSignInOptions()) async throws
        -> AuthSession
    {
        try await signIn(
            using: WebAuthenticationUserAgent(anchor: anchor, prefersEphemeralSession: settings.prefersEphemeralBrowserSession),
            options: options)
    }

    /// Signs out from a window, in the same kind of browser session as sign-in.
    @MainActor @discardableResult
    public func signOut(_ session: AuthSession, presentingFrom anchor: ASPresentationAnchor) async throws -> AppleSignOutResult {
        try await signOut(
            session, using: WebAuthenticationUserAgent(anchor: anchor, prefersEphemeralSession: settings.prefersEphemeralBrowserSession))
    }
}

#if canImport(SwiftUI)
public import SwiftUI

@available(iOS 16.4, macOS 13.3, visionOS 1.0, *)
extension AppleSignIn {
    /// Signs in with a SwiftUI view's `webAuthenticationSession`, in the
    /// browser session kind the settings ask for.
    @MainActor
    public func signIn(
        using webAuthenticationSession: WebAuthenticationSession, options: AppleSignInOptions = AppleSignInOptions()
    ) async throws -> AuthSession {
        try await signIn(
            using: SwiftUIWebAuthenticationUserAgent(
                webAuthenticationSession,
                prefersEphemeralSession: settings.prefersEphemeralBrowserSession),
            options: options)
    }

    /// Signs in with a SwiftUI view's `webAuthenticationSession` and returns
    /// the grant for the app's backend without redeeming it
    /// (`authorizeForBackend(using:options:)` with a ``WebAuthenticationPresenter``).
    @MainActor
    public func authorizeForBackend(
        using webAuthenticationSession: WebAuthenticationSession, options: AppleSignInOptions = AppleSignInOptions()
    ) async throws -> AuthorizationGrant {
        try await authorizeForBackend(
            using: SwiftUIWebAuthenticationUserAgent(
                webAuthenticationSession,
                prefersEphemeralSession: settings.prefersEphemeralBrowserSession),
            options: options)
    }

    /// Signs out with a SwiftUI view's `webAuthenticationSession`, in the
    /// same kind of browser session as sign-in.
    @MainActor @discardableResult
    public func signOut(_ session: AuthSession, using webAuthenticationSession: WebAuthenticationSession) async throws -> AppleSignOutResult
    {
        try await signOut(
            session,
            using: SwiftUIWebAuthenticationUserAgent(
                webAuthenticationSession,
                prefersEphemeralSession: settings.prefersEphemeralBrowserSession))
    }
}
#endif
#endif
