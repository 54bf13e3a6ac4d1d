#if CLI // the CLI package trait
import AuthFlow
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `authflow credential kubectl`: an exec credential plugin for kubectl
/// (``ExecCredential``). `--token id` hands out the ID token, which is what
/// Kubernetes' OIDC authenticator takes, refreshing when it expires. When
/// kubectl says the plugin must not interact (`spec.interactive: false`)
/// and a sign-in is needed, it fails at once with exit code 6 and the
/// reason on stderr; kubectl shows it.
struct KubectlCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kubectl", abstract: "kubectl's exec credential plugin (client.authentication.k8s.io v1 and v1beta1).")

    @OptionGroup var options: CredentialHelperOptions
    @Option(help: "The token to hand out: access, or id for Kubernetes' OIDC authenticator.")
    var token: HelperTokenKind = .access

    func run() async throws {
        do {
            let request = try ExecCredential.request(fromEnvironment: HelperInput.environment("KUBERNETES_EXEC_INFO"))
            // Without spec.interactive (older kubectl), a terminal on stdin means someone is there.
            let interactive = request.interactive ?? (isatty(STDIN_FILENO) == 1)
            let source = HelperTokenSource(
                profileName: options.profile ?? "default", interactive: interactive,
                nonInteractiveReason: "kubectl asked for a non-interactive credential", timeout: options.timeout,
                logger: options.makeLogger())
            let fresh = try await source.token(token)
            try StandardStream.output.write(request.response(token: fresh.value, expiresAt: fresh.expiresAt) + Data("\n".utf8))
        } catch {
            throw HelperFailure.report(error)
        }
    }
}
#endif
