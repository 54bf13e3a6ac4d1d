#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthorizationOptions {
    /// The parameter ``setCorrelationID(_:)`` sends.
    static let correlationIDParameter = "correlation_id"
    /// The longest correlation ID AuthFlow sends.
    public static let maximumCorrelationIDLength = 128

    /// Adds a `correlation_id` parameter: the app's identifier for this
    /// sign-in, which carriers that sign users in (ZenKey) record with the
    /// request, and which travels to the app's backend in the
    /// ``AuthorizationGrant/correlationID`` of the grant. Visible ASCII only,
    /// 1 to ``maximumCorrelationIDLength`` characters (it appears in URLs
    /// and logs); anything else is refused here, before anything is sent.
    /// It names the sign-in, so never put a secret or a user's data in it.
    public mutating func setCorrelationID(_ id: String) throws {
        guard !id.isEmpty, id.utf8.count <= Self.maximumCorrelationIDLength,
            id.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else {
            throw AuthFlowError.configuration(
                "a correlation ID must be 1 to \(Self.maximumCorrelationIDLength) visible ASCII characters")
        }
        additionalParameters.removeAll { $0.name == Self.correlationIDParameter }
        additionalParameters.append(Parameter(Self.correlationIDParameter, id))
    }
}
