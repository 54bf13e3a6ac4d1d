#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser

/// `login --resource URL --client-id ID` with a client secret: the secret
/// was issued by one authorization server, and goes to that one only. The
/// resource names its authorization server itself, so a hostile (or
/// compromised) resource could name a server of its choosing and collect
/// the secret from the token request. The user names the issuer with
/// `--issuer`; the client ID and secret are used only when the resource's
/// authorization server is exactly that issuer, and nothing is sent
/// otherwise.
extension Login {
    /// Whether `--client-secret` or `--client-secret-env` is given.
    var hasClientSecret: Bool { clientSecret != nil || clientSecretEnv != nil }

    /// The issuer a pre-registered client with a secret is bound to (nil without a secret).
    var secretIssuer: String? { hasClientSecret ? issuer : nil }

    /// A secret with `--resource` needs `--issuer`.
    func validateSecretIssuer() throws {
        if hasClientSecret, issuer == nil {
            throw ValidationError(
                "a client secret with --resource needs --issuer: the authorization server that issued the secret, the only one it is sent to"
            )
        }
    }

    /// Runs the sign-in; when the secret's issuer is not the resource's
    /// authorization server (the engine then finds no client identity for
    /// it), says so plainly.
    func refusingAnotherSecretIssuer<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthFlowError
            where error.category == .configuration && secretIssuer != nil
            && error.message.hasPrefix("no client identity for ")
        {
            let named = String(error.message.dropFirst("no client identity for ".count))
            throw AuthFlowError(
                .configuration,
                "the resource's authorization server is \(named), not \(secretIssuer ?? ""): "
                    + "the client secret is sent only to the issuer given with --issuer, so nothing was sent",
                recovery: "Check that --resource and --issuer name the API and the authorization server you registered the client with.",
                underlyingError: error)
        }
    }
}
#endif
