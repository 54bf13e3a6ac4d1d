// `authflow`: the command scripts run most, `authflow token` on a token that
// is still valid, answered in a process that maps no Foundation, no libcurl
// and no argument parser; everything else runs `authflow-core`, the full
// tool, installed beside this executable.
import ProfileToken
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

if let request = TokenArguments(Array(CommandLine.arguments.dropFirst())),
   let token = TokenFastPath.freshToken(profile: request.profile, minimumValidity: request.minimumValidity) {
    // What `authflow-core token` prints: the token and a newline.
    Terminal.write(token + "\n", to: 1)
    exit(0)
}
FullTool.run()
