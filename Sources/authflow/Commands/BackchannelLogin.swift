#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `authflow login --ciba`: Client-Initiated Backchannel Authentication
/// (OpenID CIBA Core 1.0, poll mode). The provider asks the user named by
/// `--login-hint` on their own device; the terminal shows the binding
/// message to compare and a progress line while it waits. stdout keeps only
/// the result.
extension Login {
    /// Whether CIBA is used.
    var usesBackchannel: Bool { ciba || backchannelAuthenticationEndpoint != nil }

    func validateBackchannel() throws {
        guard usesBackchannel else {
            if loginHint != nil || loginHintTokenEnv != nil || bindingMessage != nil {
                throw ValidationError("--login-hint, --login-hint-token-env and --binding-message go with --ciba")
            }
            return
        }
        if usesDevice { throw ValidationError("use either --ciba or --device") }
        if !params.isEmpty { throw ValidationError("--param applies to the browser flow, not to --ciba") }
        guard (loginHint == nil) != (loginHintTokenEnv == nil) else {
            throw ValidationError("--ciba names the user with one of --login-hint and --login-hint-token-env")
        }
        guard clientSecret != nil || clientSecretEnv != nil || senderOptions.privateKey != nil, clientAuth != ClientAuth.none else {
            throw ValidationError("--ciba needs a confidential client: give --client-secret-env or --private-key (CIBA Core §7.1)")
        }
    }

    func backchannelSignIn(client: OAuthClient, scopes: [String]) async throws -> OAuthCredentials {
        let endpoint = try ProviderOptions.endpoint("--backchannel-authentication-endpoint", backchannelAuthenticationEndpoint)
        let hint: BackchannelAuthenticationRequest.UserHint
        if let loginHint {
            hint = .loginHint(loginHint)
        } else {
            let variable = loginHintTokenEnv ?? ""
            guard let token = ProcessInfo.processInfo.environment[variable], !token.isEmpty else {
                throw AuthFlowError(
                    .configuration, "environment variable \(variable) is not set",
                    recovery: "Export \(variable) with the login_hint_token, or use --login-hint.")
            }
            hint = .loginHintToken(token)
        }
        let request = BackchannelAuthenticationRequest(
            user: hint, scopes: scopes, bindingMessage: bindingMessage ?? Self.bindingCode())
        let pending = try await client.startBackchannelAuthentication(request, endpoint: endpoint)
        let progress = ProgressLine()
        Output.stderr(BackchannelInstructions(pending: pending).text)
        defer { progress.finish() }
        return try await pending.credentials { poll in
            progress.show("still waiting: \(poll.attempt) check\(poll.attempt == 1 ? "" : "s"), the last after \(poll.interval)")
        }
    }

    /// A short code for both screens when `--binding-message` is not given:
    /// "AF-" and four digits, enough to tell two requests apart at a glance.
    static func bindingCode() -> String {
        "AF-" + TextColumns.zeroPadded(Int.random(in: 0..<10_000), width: 4)
    }
}

/// What the user reads on the terminal while the provider asks them elsewhere.
struct BackchannelInstructions {
    let pending: PendingBackchannelAuthentication

    var text: String {
        let minutes = max(1, (pending.response.expiresIn + 59) / 60)
        var lines = ["The provider is asking \(pending.request.user.shownName) to approve this sign-in on their own device."]
        if let message = pending.bindingMessage {
            lines += ["", "Approve only if it shows:", "", "    \(TerminalText.field(message))", ""]
        }
        lines.append("Waiting for approval (the request expires in \(minutes) minute\(minutes == 1 ? "" : "s"))…")
        return lines.joined(separator: "\n")
    }
}

extension BackchannelAuthenticationRequest.UserHint {
    /// The user as the terminal names them: the login hint, or "the user" for a token.
    var shownName: String {
        if case .loginHint(let hint) = self { return hint }
        return "the user"
    }
}
#endif
