#if CLI // the CLI package trait
import ArgumentParser

/// `authflow credential`: the profile's token where tools ask for it — git,
/// kubectl and Docker credential helpers, and which URLs each profile serves.
struct CredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credential", abstract: "Credential helpers for git, kubectl and Docker.",
        discussion: "A helper that must sign in first opens the browser (or shows a device code) on stderr; "
            + "parallel helpers share one sign-in.",
        subcommands: [GitCredentialCommand.self, KubectlCredentialCommand.self, DockerCredentialCommand.self, CredentialHostsCommand.self])
}
#endif
