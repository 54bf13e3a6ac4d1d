#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthorizationOptions {
    /// The longest `context` AuthFlow sends (ZenKey shows it on the consent
    /// screen and allows 280 characters).
    public static let maximumContextLength = 280

    /// Adds a `context` parameter: a message the provider shows the user on
    /// its consent screen (ZenKey). Longer than ``maximumContextLength``
    /// characters is refused here, before anything is sent.
    /// The same rule holds for a `context` given as one of the
    /// ``additionalParameters``: it is checked when the request is made.
    public mutating func setContext(_ context: String) throws {
        try Self.checkContext(context)
        additionalParameters.removeAll { $0.name == "context" }
        additionalParameters.append(Parameter("context", context))
    }

    /// Refuses a `context` longer than ``maximumContextLength`` characters.
    static func checkContext(_ context: String) throws {
        guard context.count <= AuthorizationOptions.maximumContextLength else {
            throw AuthFlowError.configuration(
                "context has \(context.count) characters; at most \(AuthorizationOptions.maximumContextLength) are allowed")
        }
    }
}
