#if EmbeddedProvider // the EmbeddedProvider package trait
import UnixSignals

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
extension EmbeddedProvider {
    /// Waits for SIGINT or SIGTERM, then stops the provider gracefully
    /// (for `authflow provider serve`).
    public func runUntilTerminated() async {
        for await _ in await UnixSignalsSequence(trapping: .sigint, .sigterm) { break }
        await stop()
    }
}
#endif
