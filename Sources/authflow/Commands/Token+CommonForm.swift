#if CLI // the CLI package trait
import ArgumentParser

extension Token {
    /// The forms scripts run most, `authflow token` and
    /// `authflow token --profile NAME`, as the parser would make them, or nil
    /// for any other form (which the parser reads, and reports when wrong).
    ///
    /// ArgumentParser builds a command by reflection: it demangles each
    /// property's type, and the first conformance lookup of each type scans
    /// every conformance record of the executable; it also parses the line
    /// twice more, looking for `--generate-completion-script`. That was 1.5 ms
    /// of the 7.3 ms `authflow token` took on the release build
    /// (docs/performance.md). Here
    /// every property is set to its declared default instead, and the two
    /// validations the parser would run are run. `TokenCommandLineTests`
    /// compares the result with the parser's, property by property, so an
    /// option added to `Token` without a value here fails there, not in use.
    static func commonForm(_ arguments: [String]) -> Token? {
        let profile: String?
        switch arguments.count {
        case 0:
            profile = nil
        case 2 where arguments[0] == "--profile" && !arguments[1].hasPrefix("-"):
            profile = arguments[1]
        default:
            return nil
        }
        var token = Token()
        var profileOption = ProfileOption()
        profileOption.explicitProfile = profile
        token.profileOption = profileOption
        token.forURL = nil
        var storeOption = StoreOption()
        storeOption.store = nil
        token.storeOption = storeOption
        token.resource = nil
        token.exchange = false
        token.audience = false
        token.scope = nil
        token.minTTL = nil
        token.force = false
        token.timeout = 30
        var verboseOption = VerboseOption()
        verboseOption.verbose = false
        token.verboseOption = verboseOption
        // What the parser validates: the command and its store option (`AUTHFLOW_STORE`).
        // A refusal is left to the parser, which reports it as usage.
        do {
            try token.storeOption.validate()
            try token.validate()
        } catch {
            return nil
        }
        return token
    }
}
#endif
