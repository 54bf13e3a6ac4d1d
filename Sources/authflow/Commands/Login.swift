#if CLI // the CLI package trait
import AuthFlow
import AuthFlowLoopback
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow login`: the authorization code flow with PKCE through the
/// system browser and a loopback redirect (RFC 8252 §7.3), or with
/// `--device` the device authorization grant (RFC 8628, DeviceLogin.swift).
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in through the browser and store the tokens in a profile.",
        discussion: """
            With --device, sign in on another device with a user code instead (RFC 8628).
            With --ciba --login-hint USER, the provider asks the user on their own device (OpenID CIBA, poll mode;
            a confidential client).
            With --resource URL, the API's metadata names the provider and the client registers itself (RFC 9728, RFC 7591).
            With --account user@host, the account's host names the issuer (WebFinger, OpenID Connect Discovery §2).
            Without --issuer, endpoints or --client-id, signs in again with the settings the profile kept.
            """)

    enum ClientAuth: String, ExpressibleByArgument, CaseIterable {
        case none, basic, post
        case privateKeyJWT = "private_key_jwt"
        case clientSecretJWT = "client_secret_jwt"
    }

    @Option(help: "The issuer; its metadata is discovered.")
    var issuer: String?
    @Option(help: "An account (user@host, acct: URI or URL) whose host names the issuer by WebFinger (instead of --issuer).")
    var account: String?
    @Option(help: "An API's URL: its authorization server and the client are found from it (RFC 9728, RFC 7591).")
    var resource: String?
    @Option(help: "The authorization endpoint (instead of --issuer).")
    var authorizationEndpoint: String?
    @Option(help: "The token endpoint (instead of --issuer).")
    var tokenEndpoint: String?
    @OptionGroup var providerOptions: ProviderOptions
    @Option(help: "The client identifier.")
    var clientID: String?
    @Option(help: "The client secret (prefer --client-secret-env).")
    var clientSecret: String?
    @Option(help: "An environment variable that holds the client secret.")
    var clientSecretEnv: String?
    @Option(help: "Client authentication: none, basic, post, private_key_jwt or client_secret_jwt.")
    var clientAuth: ClientAuth?
    @OptionGroup var senderOptions: SenderOptions
    @Option(help: "Space-separated scopes (default: openid with --issuer, none otherwise).")
    var scope: String?
    @Option(name: .customLong("param"), help: "An extra authorization parameter NAME=VALUE (repeatable).")
    var params: [String] = []
    @Option(help: "The loopback port (default: an ephemeral port).")
    var port: Int = 0
    @OptionGroup var profileOption: ProfileOption
    @OptionGroup var storeOption: StoreOption
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @Option(help: "Seconds to wait for the browser's redirect.")
    var browserTimeout: Double = 300
    @Flag(help: "Do not open a browser; only print the URL.")
    var noBrowser = false
    @Flag(help: "Use the device authorization grant: print a user code to enter on another device.")
    var device = false
    @Option(help: "The device authorization endpoint, when the provider does not publish one (implies --device).")
    var deviceAuthorizationEndpoint: String?
    @Flag(help: "With --device, do not draw a QR code of the verification URL.")
    var noQr = false
    @Flag(help: "Use backchannel authentication (OpenID CIBA): the provider asks the user named by --login-hint on their device.")
    var ciba = false
    @Option(help: "With --ciba, the user to ask: an identifier the provider knows (email, phone number, user name).")
    var loginHint: String?
    @Option(help: "With --ciba, an environment variable that holds a login_hint_token naming the user (instead of --login-hint).")
    var loginHintTokenEnv: String?
    @Option(help: "With --ciba, the message shown on both screens (default: a short random code).")
    var bindingMessage: String?
    @Option(help: "The backchannel authentication endpoint, when the provider does not publish one (implies --ciba).")
    var backchannelAuthenticationEndpoint: String?
    @Flag(help: "Print the result as JSON on stdout.")
    var json = false
    @Flag(help: "Include the raw tokens in the output.")
    var showTokens = false
    @OptionGroup var verboseOption: VerboseOption

    /// Whether the device grant is used.
    var usesDevice: Bool { device || deviceAuthorizationEndpoint != nil }

    func validate() throws {
        if let resource { return try validateResource(resource) }
        if signsInAgain { return try validateSigningInAgain() }
        guard clientID != nil else {
            throw ValidationError("give --client-id (or no provider flags at all, to sign in again with the profile's settings)")
        }
        if issuer != nil, account != nil { throw ValidationError("use either --issuer or --account") }
        switch (issuer ?? account, authorizationEndpoint, tokenEndpoint) {
        case (.some, nil, nil), (nil, .some, .some): break
        case (nil, nil, .some) where deviceAuthorizationEndpoint != nil: break // a device-only provider
        case (.some, _, _):
            throw ValidationError("use either --\(issuer == nil ? "account" : "issuer") or --authorization-endpoint with --token-endpoint")
        default: throw ValidationError("give --issuer, or both --authorization-endpoint and --token-endpoint")
        }
        if usesDevice, !params.isEmpty { throw ValidationError("--param applies to the browser flow, not to --device") }
        try validateBackchannel()
        if clientSecret != nil, clientSecretEnv != nil { throw ValidationError("use either --client-secret or --client-secret-env") }
        // The account's domain chooses the provider: a secret would go to whichever one it names.
        if account != nil, clientSecret != nil || clientSecretEnv != nil {
            throw ValidationError(
                "--account lets the account's domain choose the provider; a client secret goes only to a provider you name with --issuer")
        }
        if clientAuth == ClientAuth.none, clientSecret != nil || clientSecretEnv != nil {
            throw ValidationError("--client-auth none takes no client secret")
        }
        try senderOptions.validate(
            method: clientAuth?.rawValue, hasSecret: clientSecret != nil || clientSecretEnv != nil, device: usesDevice)
        _ = try parameters()
        try providerOptions.validate(issuer: issuer ?? account)
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard timeout > 0, browserTimeout > 0 else { throw ValidationError("timeouts must be positive") }
    }

    /// `--param` values, refusing the reserved names.
    func parameters() throws -> [AuthorizationOptions.Parameter] {
        try params.map { text in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw ValidationError("--param takes NAME=VALUE")
            }
            let name = String(text[..<equals])
            guard !AuthorizationOptions.reservedParameters.contains(name) else {
                throw ValidationError("--param \(name) is reserved: AuthFlow sets it itself")
            }
            return AuthorizationOptions.Parameter(name, String(text[text.index(after: equals)...]))
        }
    }

    func run() async throws {
        do {
            // A store that will refuse the credentials fails before the browser opens, not after the sign-in.
            try await storeOption.kind().withStore(profile: profileOption.profile, logger: verboseOption.makeLogger) {
                try await $0.checkBeforeSignIn()
            }
            try await signIn()
        } catch let error as ValidationError {
            throw error
        } catch {
            throw Output.fail(error, json: json)
        }
    }

    private func secret() throws -> String? {
        if let clientSecret { return clientSecret }
        guard let variable = clientSecretEnv else { return nil }
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            throw AuthFlowError(
                .configuration, "environment variable \(variable) is not set",
                recovery: "Export \(variable) with the client secret, or name another variable with --client-secret-env.")
        }
        return value
    }

    private func authentication(secret: String?, metadata: ProviderMetadata) throws -> ClientAuthentication {
        let method =
            clientAuth
            ?? {
                if senderOptions.privateKey != nil { return .privateKeyJWT }
                guard secret != nil else { return .none }
                if let methods = metadata.tokenEndpointAuthMethodsSupported, !methods.contains("client_secret_basic"),
                    methods.contains("client_secret_post")
                {
                    return .post
                }
                return .basic
            }()
        switch method {
        case .none: return .none
        case .basic, .post:
            guard let secret else {
                throw AuthFlowError(
                    .configuration, "--client-auth \(method.rawValue) needs --client-secret or --client-secret-env",
                    recovery: "Add --client-secret-env VAR (the secret in $VAR), or use --client-auth none for a public client.")
            }
            return method == .basic ? .clientSecretBasic(secret: secret) : .clientSecretPost(secret: secret)
        case .privateKeyJWT, .clientSecretJWT:
            return try SenderOptions.jwtAuthentication(
                method: method.rawValue, secret: secret, privateKeyPath: senderOptions.privateKeyPath,
                keyID: senderOptions.keyID, audience: senderOptions.assertionAudience?.rawValue)!
        }
    }

    /// Userinfo, when the provider has an endpoint and OpenID Connect was
    /// used. A `sub` that differs from the ID token's fails the sign-in;
    /// other failures only warn (the tokens are valid without it).
    private func fetchUserInfo(client: OAuthClient, credentials: OAuthCredentials) async throws -> OpenIDUserInfo? {
        guard client.metadata.userinfoEndpoint != nil, let subject = credentials.subject else { return nil }
        do {
            return try await client.userInfo(
                accessToken: credentials.accessToken, tokenType: credentials.token.tokenType, expectedSubject: subject)
        } catch let error as AuthFlowError where Output.exitCode(for: error.category) == 4 {
            throw error
        } catch {
            Output.stderr("warning: userinfo failed: \(error)")
            return nil
        }
    }

    private func signIn() async throws {
        let logger = verboseOption.makeLogger()
        if let resource { return try await resourceSignIn(resource, logger: logger) }
        if signsInAgain, let resource = try Profile.loadIfPresent(profileOption.profile)?.resource {
            return try await resourceSignIn(resource.description, logger: logger)
        }
        if signsInAgain { return try await signInAgain(logger: logger) }
        guard let clientID else { throw ValidationError("give --client-id") }
        let secret = try secret()
        let metadata: ProviderMetadata
        if let issuer = try await namedIssuer(logger: logger) {
            let tenants = try providerOptions.tenants()
            let discovered = try await ProviderMetadata.discover(issuer: issuer, tenants: tenants, timeout: timeout, logger: logger)
            metadata = try providerOptions.supplement(try ProviderOptions.pinning(tenants, to: discovered))
        } else {
            guard let token = tokenEndpoint.flatMap(URL.init(string:)), token.scheme != nil,
                let authorization = (authorizationEndpoint ?? deviceAuthorizationEndpoint).flatMap(URL.init(string:)),
                authorization.scheme != nil
            else {
                throw AuthFlowError(
                    .configuration, "--authorization-endpoint and --token-endpoint must be URLs",
                    recovery: "Give both as full https URLs from the provider's documentation.")
            }
            // A device-only provider has no authorization endpoint; the profile records the device endpoint there.
            metadata = try providerOptions.metadata(authorization: authorization, token: token)
        }
        var client = try OAuthClient(
            metadata: metadata, clientID: clientID, authentication: authentication(secret: secret, metadata: metadata),
            timeout: timeout, logger: logger)
        client.usesPushedAuthorizationRequests = senderOptions.par
        if senderOptions.dpop { client.dpop = DPoPBinding() }
        let scopes = (scope ?? (issuer == nil && account == nil && providerOptions.idTokenIssuer == nil ? "" : "openid")).split(
            separator: " "
        ).map(
            String.init)
        let credentials =
            usesBackchannel
            ? try await backchannelSignIn(client: client, scopes: scopes.contains("openid") ? scopes : ["openid"] + scopes)
            : usesDevice
                ? try await deviceSignIn(client: client, scopes: scopes)
                : try await browserSignIn(client: client, scopes: scopes, parameters: try parameters(), port: port, logger: logger)

        var settings = metadata
        // Kept so that `authflow login` without flags finds the device endpoint again.
        if usesDevice, let endpoint = deviceAuthorizationEndpoint.flatMap(URL.init(string:)) {
            settings.deviceAuthorizationEndpoint = endpoint
        }
        var profile = Profile(
            name: profileOption.profile, metadata: settings, clientID: clientID,
            clientAuthentication: client.authentication.methodName,
            clientSecret: clientSecretEnv == nil ? clientSecret : nil, clientSecretEnv: clientSecretEnv,
            scopes: scopes, parameters: try parameters(), port: port, device: usesDevice, credentials: credentials)
        profile.privateKeyPath = senderOptions.privateKeyPath
        profile.keyID = senderOptions.keyID
        profile.assertionAudience = senderOptions.assertionAudience?.rawValue
        profile.dpopKey = client.dpop?.key as? DPoPKey
        profile.dpop = senderOptions.dpop
        profile.par = senderOptions.par
        try await finish(profile, client: client)
    }

    /// The issuer `--issuer` gives, or the one `--account`'s host names by
    /// WebFinger (OpenID Connect Discovery 1.0 §2); nil with neither.
    private func namedIssuer(logger: Logger) async throws -> Issuer? {
        guard let account else { return try issuer.map { try Issuer(commandLine: $0, flag: "--issuer") } }
        do {
            return try await Issuer.discover(account: account, timeout: timeout, logger: logger)
        } catch let error as AuthFlowError where error.category == .configuration {
            throw AuthFlowError(error.category, "--account: \(error.message)", recovery: error.recovery, remedy: error.remedy)
        }
    }

    /// Keeps the signed-in profile in the store `--store` names (the
    /// settings in the profile's file, under its lock, so no refresh or
    /// logout of the old credentials in flight elsewhere can overwrite it),
    /// then prints the summary.
    func finish(_ profile: Profile, client: OAuthClient) async throws {
        guard let credentials = profile.credentials else { return }
        let userInfo = try await fetchUserInfo(client: client, credentials: credentials)
        let saved = try await storeOption.kind().withStore(profile: profile.name, logger: verboseOption.makeLogger) { store in
            try await store.saveSignIn(profile, client: client)
        }
        let summary = Summary(
            profile: saved.profile, credentials: credentials, showTokens: showTokens, userInfo: userInfo, store: saved.store)
        if json {
            Output.json(summary)
        } else {
            summary.printHuman(path: saved.path)
            if let note = saved.note { Output.stderr(note) }
        }
    }

    /// The authorization code flow through the browser and the loopback
    /// listener: the engine's ``AuthFlow/OAuthClient/authorize(redirectURI:scopes:options:userAgent:)``
    /// (pushed requests with `--par` or when the provider requires them,
    /// RFC 9126) with the terminal's user agent, which prints the URL, opens
    /// the browser where one may open, and takes a pasted redirect where
    /// none will (``TerminalUserAgent``); then the code exchange.
    /// With `demand` (a step-up), the sign-in also asks for its `acr_values`
    /// and `max_age`, and the ID token's `acr` and `auth_time` are checked.
    func browserSignIn(
        client: OAuthClient, scopes: [String], parameters: [AuthorizationOptions.Parameter], port: Int,
        demand: AuthSession.StepUpDemand? = nil, logger: Logger
    ) async throws -> OAuthCredentials {
        // Where no browser will open: the device grant, or the printed URL with a pasted redirect (HeadlessSignIn.swift).
        if let credentials = try await headlessDeviceSignIn(client: client, scopes: scopes, port: port) { return credentials }
        let listener = try await LoopbackListener.start(port: port, logger: logger)
        let agent = TerminalUserAgent(
            listener: listener, timeout: browserTimeout, opensBrowser: !noBrowser && HeadlessSignIn.reason() == nil)
        do {
            // A provider that requires PAR for this client alone refuses a plain request with
            // the remedy `usePushedAuthorizationRequests` (RFC 9126 §5), which the hint says as --par.
            let grant = try await client.authorize(
                redirectURI: listener.redirectURI, scopes: scopes,
                options: demand.map { $0.options(AuthorizationOptions(additionalParameters: parameters)) }
                    ?? AuthorizationOptions(additionalParameters: parameters),
                userAgent: agent)
            // What the provider adds beside the code (Sign in with Apple's `user`, with the name) is shown, not stored.
            for member in grant.responseParameters where !member.name.hasPrefix("error") {
                Output.stderr("The provider also sent \(TerminalText.field(member.name)): \(TerminalText.field(member.value))")
            }
            let credentials = try await client.exchange(grant)
            await listener.close()
            return credentials
        } catch {
            await listener.close()
            throw error
        }
    }
}
#endif
