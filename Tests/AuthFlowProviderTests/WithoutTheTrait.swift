#if !EmbeddedProvider
import Testing

/// Without the `EmbeddedProvider` trait the provider is not built, and
/// neither are its suites: this says so in the test report instead of
/// passing over them in silence.
@Suite("AuthFlowProvider (needs the EmbeddedProvider trait)")
struct ProviderSuitesNeedTheTrait {
    @Test(
        .disabled(
            "the embedded provider's suites build only with the trait: swift test --traits EmbeddedProvider (scripts/test uses --traits CLI, which includes it)"
        ))
    func providerSuites() {}
}
#endif
