#if EmbeddedProvider // the EmbeddedProvider package trait
import Logging
import UnixSignals

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
extension EmbeddedProvider {
    /// Waits for SIGINT or SIGTERM, then stops the provider gracefully
    /// (for `authflow provider serve`). SIGUSR1 meanwhile makes it forget
    /// its registered clients (``forgetRegisteredClients()``), so that a
    /// client's recovery from `invalid_client` can be tried.
    public func runUntilTerminated() async {
        for await signal in await UnixSignalsSequence(trapping: .sigint, .sigterm, .sigusr1) {
            guard signal == .sigusr1 else { break }
            let count = await forgetRegisteredClients()
            configuration.logger.notice("registered clients forgotten", metadata: ["count": "\(count)"])
        }
        await stop()
    }
}
#endif
