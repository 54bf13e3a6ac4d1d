import AuthFlow

extension Issuer {
    /// The issuer a flag or argument gives, validated by ``Issuer/init(_:)-(String)``;
    /// its error names the flag (`--issuer: issuer must use https …`).
    init(commandLine text: String, flag: String) throws {
        do {
            try self.init(text)
        } catch let error as AuthFlowError {
            throw AuthFlowError(
                error.category, "\(flag): \(error.message)", recovery: error.recovery, remedy: error.remedy)
        }
    }
}
