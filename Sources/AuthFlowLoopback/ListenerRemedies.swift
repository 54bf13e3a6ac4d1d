public import AuthFlow

extension AuthFlowError.Remedy {
    /// The loopback port asked for is in use: choose another, or ask for
    /// port 0 (an ephemeral port) when the provider allows any loopback port.
    public static let chooseAnotherPort = Self(name: "choose_another_port")
    /// The loopback port asked for needs privileges (1023 or below): choose
    /// one above 1023, or ask for port 0 (an ephemeral port).
    public static let chooseAnUnprivilegedPort = Self(name: "choose_an_unprivileged_port")
}
