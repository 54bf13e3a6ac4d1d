import AuthFlow
import AuthFlowStoreHelper

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// `authflow` starts this program for a `--store postgresql://` profile and
// talks to it over its standard input and output (StoreHelperClient). The
// first line names the store; each line after it is one request.

/// Writes `text` to standard error.
func say(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

if CommandLine.arguments.count > 1 {
    let text = """
        authflow-postgresql: keeps authflow's sessions in PostgreSQL (authflow --store postgresql://…).
        authflow starts it; it reads JSON requests on standard input. See docs/cli.md, "A shared store".

        """
    say(text)
    exit(CommandLine.arguments.dropFirst().allSatisfy { $0 == "--help" || $0 == "-h" } ? 0 : 2)
}

#if PostgreSQL // the PostgreSQL package trait
let channel = LineChannel(input: 0, output: 1)
guard let configuration = try? await channel.receive(PostgresStoreConfiguration.self) else { exit(2) }
let opened: OpenedStore
do {
    opened = try OpenedStore(configuration)
    try channel.send(StoreHelperReply())
} catch {
    try? channel.send(StoreHelperReply(error: StoreHelperFailure(error)))
    exit(1)
}
// `authflow` died holding the lock: so does the helper, at once, so that
// PostgreSQL rolls the transaction back (StoreHelperServer says why).
await StoreHelperServer(store: opened.store, channel: channel, probe: { try await opened.probe() }, abandon: { _exit(0) }).run()
opened.close()
#else
say("authflow-postgresql was built without the PostgreSQL trait: swift build --traits CLI\n")
exit(2)
#endif
