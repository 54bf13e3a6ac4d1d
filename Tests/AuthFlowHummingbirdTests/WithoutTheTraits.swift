#if !(Hummingbird && EmbeddedProvider)
import Testing

/// Without the `Hummingbird` and `EmbeddedProvider` traits the middleware
/// (or the provider its tests get tokens from) is not built: this says so.
@Suite("AuthFlowHummingbird (needs the Hummingbird and EmbeddedProvider traits)")
struct MiddlewareSuitesNeedTheTraits {
    @Test(.disabled("the middleware's suites build only with the traits: swift test --traits CLI"))
    func middlewareSuites() {}
}
#endif
