#if CLI // the CLI package trait
import ArgumentParser

/// `authflow provider …`: the embedded OpenID Provider.
struct ProviderCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "provider", abstract: "Run the embedded OpenID Provider.", subcommands: [Serve.self])
}
#endif
