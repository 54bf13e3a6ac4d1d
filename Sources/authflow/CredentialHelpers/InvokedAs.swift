#if CLI // the CLI package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The name the executable was started as (`argv[0]`) decides the protocol:
/// `docker-credential-authflow`, a link to `authflow`, is Docker's
/// credential helper, so its arguments are those of `authflow credential docker`.
enum InvokedAs {
    static let dockerHelper = "docker-credential-authflow"

    /// The arguments to parse: `arguments` (without `argv[0]`) as they are,
    /// or prefixed with `credential docker` when started as ``dockerHelper``.
    static func arguments(argv0: String, _ arguments: [String]) -> [String] {
        let name = argv0.split(separator: "/").last.map(String.init) ?? argv0
        return name == dockerHelper ? ["credential", "docker"] + arguments : arguments
    }
}
#endif
