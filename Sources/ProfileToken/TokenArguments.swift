/// The `authflow token` command lines the `authflow` front end answers
/// itself: `token`, then in any order and each at most once
/// `--profile NAME`, `--min-ttl SECONDS`, `--timeout SECONDS` (as
/// `--option value` or `--option=value`) and `-v`/`--verbose`, with values
/// that `authflow-core` accepts (`--min-ttl` 0 or more and finite,
/// `--timeout` positive). For a token that is still valid, these print the
/// token and nothing else in `authflow-core` too: the timeout and the debug
/// log concern requests, and none is sent.
///
/// Anything else — another command, `--force`, `--help`, a repeated or
/// unknown option, a value `authflow-core` would refuse — is not
/// recognised, and the front end hands the command line to `authflow-core`.
public struct TokenArguments: Sendable, Equatable {
    /// `--profile`, `default` when absent.
    public var profile = "default"
    /// `--min-ttl`, when given.
    public var minimumValidity: Double?

    /// Creates the arguments.
    public init(profile: String = "default", minimumValidity: Double? = nil) {
        self.profile = profile
        self.minimumValidity = minimumValidity
    }

    /// Recognises `arguments` (the command line without the program name);
    /// nil for anything outside the forms above.
    public init?(_ arguments: [String]) {
        guard arguments.first == "token" else { return nil }
        var seen: Set<String> = []
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var value: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            if name == "-v" { name = "--verbose" }
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "--verbose":
                guard value == nil else { return nil }
                continue
            case "--profile", "--min-ttl", "--timeout":
                if value == nil {
                    // A value that looks like an option is not taken as one.
                    guard index < arguments.count, !arguments[index].hasPrefix("-") else { return nil }
                    value = arguments[index]
                    index += 1
                }
            default:
                return nil
            }
            guard let value else { return nil }
            switch name {
            case "--profile":
                profile = value
            case "--min-ttl":
                guard let seconds = Double(value), seconds >= 0, seconds.isFinite else { return nil }
                minimumValidity = seconds
            default:
                guard let seconds = Double(value), seconds > 0 else { return nil }
            }
        }
    }
}
