#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Kubernetes' exec credential plugin protocol
/// (client.authentication.k8s.io, `v1` and `v1beta1`): kubectl names the
/// version it wants, and whether the plugin may interact with the user, in
/// `KUBERNETES_EXEC_INFO`; the plugin prints an `ExecCredential` of that
/// version with `status.token` and `status.expirationTimestamp`.
struct ExecCredential: Equatable {
    static let group = "client.authentication.k8s.io"
    /// The versions this plugin speaks.
    static let versions = ["\(group)/v1", "\(group)/v1beta1"]
    /// A longer `KUBERNETES_EXEC_INFO` is refused (kubectl's, with a CA bundle, is a few kilobytes).
    static let maximumInfoLength = 1 << 20

    /// The version to answer in.
    let apiVersion: String
    /// `spec.interactive`: nil when kubectl does not say (v1beta1 before Kubernetes 1.22).
    let interactive: Bool?

    /// What kubectl asks, from `KUBERNETES_EXEC_INFO`; without it (the
    /// plugin run by hand), `v1`.
    static func request(fromEnvironment info: String?) throws(CredentialInputError) -> ExecCredential {
        guard let info, !info.isEmpty else { return ExecCredential(apiVersion: versions[0], interactive: nil) }
        guard info.utf8.count <= maximumInfoLength else {
            throw CredentialInputError("KUBERNETES_EXEC_INFO is larger than \(maximumInfoLength) bytes")
        }
        let value: JSONMemberValue
        do { value = try JSONMemberValue.parseStrictly(Array(info.utf8)) } catch {
            throw CredentialInputError("KUBERNETES_EXEC_INFO is not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw CredentialInputError("KUBERNETES_EXEC_INFO is not a JSON object") }
        if let kind = object["kind"], kind.stringValue != "ExecCredential" {
            throw CredentialInputError("KUBERNETES_EXEC_INFO is not an ExecCredential")
        }
        guard let version = object["apiVersion"]?.stringValue else {
            throw CredentialInputError("KUBERNETES_EXEC_INFO has no apiVersion")
        }
        guard versions.contains(version) else {
            throw CredentialInputError(
                "KUBERNETES_EXEC_INFO asks for \(TerminalText.field(String(version.prefix(100)))), which this plugin does not speak "
                    + "(it speaks \(versions.joined(separator: " and "))); set the user's exec apiVersion to one of them")
        }
        var interactive: Bool?
        if let spec = object["spec"] {
            guard let fields = spec.objectValue else { throw CredentialInputError("KUBERNETES_EXEC_INFO: spec is not an object") }
            if let flag = fields["interactive"] {
                guard let value = flag.boolValue else {
                    throw CredentialInputError("KUBERNETES_EXEC_INFO: spec.interactive is not a boolean")
                }
                interactive = value
            }
        }
        return ExecCredential(apiVersion: version, interactive: interactive)
    }

    /// The `ExecCredential` answer: `status.token` and, when known, `status.expirationTimestamp` (RFC 3339, UTC).
    func response(token: String, expiresAt: Date?) -> Data {
        struct Status: Encodable {
            let token: String
            let expirationTimestamp: String?
        }
        struct Spec: Encodable {}
        struct Response: Encodable {
            let apiVersion: String
            let kind = "ExecCredential"
            let spec = Spec()
            let status: Status
        }
        let status = Status(token: token, expirationTimestamp: expiresAt.map(InternetDateTime.string(from:)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(Response(apiVersion: apiVersion, status: status))) ?? Data()
    }
}
#endif
