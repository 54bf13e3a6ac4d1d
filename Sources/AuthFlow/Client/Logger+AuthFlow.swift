public import Logging

extension Logger {
    /// The logger of a call into AuthFlow that was given none: labelled
    /// `AuthFlow`, or `AuthFlow.` and the part's name (`AuthFlow.MCP`).
    ///
    /// Made when the call is, so it takes whatever handler the app
    /// bootstrapped (`LoggingSystem.bootstrap`) by then. One place for every
    /// module's default `logger:` argument.
    @usableFromInline
    package static func authFlow(_ part: String? = nil) -> Logger {
        Logger(label: part.map { "AuthFlow.\($0)" } ?? "AuthFlow")
    }
}
