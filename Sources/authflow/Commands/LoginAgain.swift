#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

/// `authflow login [--profile NAME]` with no provider flags: signs in again
/// with every setting the profile kept (issuer or endpoints and their
/// tenants, the client and its authentication, scopes, parameters such as
/// `resource`, port, device grant, DPoP, PAR), changed only by the flags
/// given with it: `--scope`, `--param`, `--port`, `--device`, `--dpop`,
/// `--par`, `--tenant`. A flag that would change the client or the
/// provider is a usage error: that is a new sign-in, with `--issuer` and
/// `--client-id`.
extension Login {
    /// True when no flag names a provider or client: the profile's settings are used.
    var signsInAgain: Bool {
        issuer == nil && authorizationEndpoint == nil && tokenEndpoint == nil && deviceAuthorizationEndpoint == nil && clientID == nil
            && resource == nil && account == nil
    }

    /// The flags given that signing in again cannot honour.
    private var clientOrProviderFlags: [String] {
        let given: [(String, Bool)] = [
            ("--client-secret", clientSecret != nil), ("--client-secret-env", clientSecretEnv != nil), ("--client-auth", clientAuth != nil),
            ("--private-key", senderOptions.privateKey != nil), ("--key-id", senderOptions.keyID != nil),
            ("--assertion-audience", senderOptions.assertionAudience != nil),
            ("--revocation-endpoint", providerOptions.revocationEndpoint != nil),
            ("--userinfo-endpoint", providerOptions.userinfoEndpoint != nil),
            ("--end-session-endpoint", providerOptions.endSessionEndpoint != nil), ("--jwks-uri", providerOptions.jwksURI != nil),
            ("--id-token-issuer", providerOptions.idTokenIssuer != nil),
            // A backchannel sign-in names its user and client each time; the profile keeps neither hint.
            ("--ciba", usesBackchannel), ("--login-hint", loginHint != nil), ("--login-hint-token-env", loginHintTokenEnv != nil),
            ("--binding-message", bindingMessage != nil),
        ]
        return given.filter(\.1).map(\.0)
    }

    func validateSigningInAgain() throws {
        if let flag = clientOrProviderFlags.first {
            throw ValidationError(
                "\(flag) changes the client or the provider, which signing in again keeps from the profile; "
                    + "give --issuer (or the endpoints) and --client-id with it for a new sign-in")
        }
        if senderOptions.par, device { throw ValidationError("--par applies to the browser flow, not to --device") }
        if !params.isEmpty, device { throw ValidationError("--param applies to the browser flow, not to --device") }
        _ = try parameters()
        do { _ = try providerOptions.tenants() } catch let error as AuthFlowError {
            throw ValidationError(error.commandLineRecovery ?? error.message)
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard timeout > 0, browserTimeout > 0 else { throw ValidationError("timeouts must be positive") }
    }

    func signInAgain(logger: Logger) async throws {
        let (profile, client) = try await signedInAgain(logger: logger)
        try await finish(profile, client: client)
    }

    /// Signs in again with the profile's settings and returns the profile
    /// holding the new credentials (not yet saved) and the client: what
    /// `authflow login` prints and saves, and what a credential helper saves quietly.
    func signedInAgain(logger: Logger) async throws -> (Profile, OAuthClient) {
        let name = profileOption.profile
        // The settings only: a new sign-in needs none of the old secrets (wherever they are kept).
        guard let stored = try Profile.loadSettingsIfPresent(name) else {
            throw AuthFlowError(
                .configuration, "there is no profile \(name) to sign in again with",
                recovery:
                    "Give the provider and client: authflow login --issuer URL --client-id ID\(name == "default" ? "" : " --profile \(name)")."
            )
        }
        var profile = stored
        profile.metadata = try ProviderOptions.pinning(try providerOptions.tenants(), to: stored.metadata)
        profile.dpop = stored.dpop || senderOptions.dpop
        profile.par = stored.par || senderOptions.par
        profile.scopes = scope.map { $0.split(separator: " ").map(String.init) } ?? stored.scopes
        profile.parameters = params.isEmpty ? stored.parameters : try parameters()
        let usesDevice = stored.device || usesDevice
        if usesDevice, senderOptions.par {
            throw ValidationError("--par applies to the browser flow, not to --device (profile \(name) signs in with --device)")
        }

        var client = try OAuthClient(
            metadata: profile.metadata, clientID: profile.clientID, authentication: profile.authentication(),
            timeout: timeout, logger: logger)
        client.usesPushedAuthorizationRequests = profile.par && !usesDevice
        client.resource = profile.resource
        client.registration = profile.registration
        // A new sign-in binds its tokens to a new key; the old key goes with the old tokens.
        if profile.dpop { client.dpop = DPoPBinding() }
        profile.credentials =
            usesDevice
            ? try await deviceSignIn(client: client, scopes: profile.scopes)
            : try await browserSignIn(
                client: client, scopes: profile.scopes, parameters: profile.parameters,
                port: port == 0 ? stored.port : port, logger: logger)
        profile.dpopKey = client.dpop?.key as? DPoPKey
        return (profile, client)
    }
}
#endif
