import Foundation

/// Which tenants a multi-tenant issuer may sign in, for providers whose
/// metadata names an issuer *template* such as Microsoft Entra ID's
/// `https://login.microsoftonline.com/{tenantid}/v2.0` (served for the
/// `common`, `organizations` and `consumers` authorities).
///
/// Such a document is accepted only when the caller opts in with this value
/// (the command-line tool's tenant option). Each ID token must then name as
/// its `iss` the template with the token's own `tid` put in place of
/// `{tenantid}`, and with ``only(_:)`` that `tid` must be one of the listed
/// tenants. No other issuer difference is ever accepted.
public enum IssuerTenants: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Any tenant (for apps open to every organisation or personal account).
    case any
    /// Only these tenant IDs (compared exactly).
    case only([String])

    /// The placeholder a template issuer holds.
    public static let placeholder = "{tenantid}"

    /// Parses the text form of ``description``: `any`, or tenant IDs separated
    /// by commas (what the command-line tool's tenant option takes).
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "any" {
            self = .any
            return
        }
        let ids = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !ids.isEmpty, ids.allSatisfy(IssuerTenants.isTenantID) else {
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

    /// A tenant ID as it may stand in an issuer URL: one non-empty path
    /// segment of letters, digits, `-`, `.` and `_`.
    static func isTenantID(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 128 && text != "." && text != ".."
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-._".unicodeScalars.contains(scalar))
            }
    }

    /// Whether `issuer` is a template (holds ``placeholder`` exactly once).
    public static func isTemplate(_ issuer: String) -> Bool {
        // Checked on every ID token: an issuer without a brace is no template.
        issuer.utf8.contains(UInt8(ascii: "{")) && issuer.components(separatedBy: placeholder).count == 2
    }

    /// The issuer `template` names for `tenant`.
    static func issuer(_ template: String, tenant: String) -> String {
        template.replacingOccurrences(of: placeholder, with: tenant)
    }

    /// Whether the concrete `issuer` is `template` with some tenant ID in place.
    static func template(_ template: String, matches issuer: String) -> Bool {
        let parts = template.components(separatedBy: placeholder)
        guard parts.count == 2, issuer.count > parts[0].count + parts[1].count,
            issuer.hasPrefix(parts[0]), issuer.hasSuffix(parts[1])
        else { return false }
        let tenant = issuer.dropFirst(parts[0].count).dropLast(parts[1].count)
        return isTenantID(String(tenant))
    }
}
