#if CLI // the CLI package trait
import ArgumentParser
import Logging

/// The options every credential helper takes: `--profile`, `--timeout` and
/// `-v/--verbose`.
struct CredentialHelperOptions: ParsableArguments {
    @Option(
        help: "The profile to answer with (git, Docker: by default the profile whose credential URLs serve the URL; kubectl: default).")
    var profile: String?
    @Option(help: "Seconds each network request may take.")
    var timeout: Double = 30
    @OptionGroup var verboseOption: VerboseOption

    func validate() throws {
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be positive") }
    }

    func makeLogger() -> Logger { verboseOption.makeLogger() }
}
#endif
