#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which tenants a multi-tenant issuer may sign in, for providers whose
/// metadata names an issuer template (``Issuer/isTemplate``) such as Microsoft Entra ID's
/// `https://login.microsoftonline.com/{tenantid}/v2.0` (served for the
/// `common`, `organizations` and `consumers` authorities).
///
/// Such a document is accepted only when the caller opts in with this value
/// (the command-line tool's tenant option). Each ID token must then name as
/// its `iss` the template with the token's own `tid` in place
/// (``Issuer/instantiated(tid:)``), and with ``only(_:)`` that `tid` must be one of the listed
/// tenants. No other issuer difference is ever accepted.
public enum IssuerTenants: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Any tenant (for apps open to every organisation or personal account).
    case any
    /// Only these tenant IDs (compared exactly).
    case only([String])

    /// Parses the text form of ``description``: `any`, or tenant IDs separated
    /// by commas (what the command-line tool's tenant option takes).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingWhitespace()
        if trimmed.lowercased() == "any" {
            self = .any
            return
        }
        let ids = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingWhitespace() }
        guard !ids.isEmpty, ids.allSatisfy(Issuer.isTenantID) else {
            throw AuthFlowError(
                .configuration, "tenant list \"\(text.prefix(200))\" is not valid",
                recovery: "Give any, or tenant IDs separated by commas (letters, digits, '-', '.', '_').", remedy: .fixTheTenantList)
        }
        self = .only(ids)
    }

    /// `any`, or the tenant IDs separated by commas: the form
    /// ``init(parsing:)`` reads.
    public var description: String {
        switch self {
        case .any: "any"
        case .only(let ids): ids.joined(separator: ",")
        }
    }

    /// Whether `tenant` is allowed.
    public func allows(_ tenant: String) -> Bool {
        switch self {
        case .any: true
        case .only(let ids): ids.contains(tenant)
        }
    }
}
