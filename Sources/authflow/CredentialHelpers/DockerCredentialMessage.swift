#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The docker-credential-helpers protocol: `get` and `erase` read a server
/// URL on stdin, `store` reads `{"ServerURL", "Username", "Secret"}`, `get`
/// answers the same object, `list` answers `{URL: username}`. Failures are
/// one line on stdout and a non-zero exit; a missing credential is the exact
/// line Docker recognises, ``notFound``.
enum DockerCredentialMessage {
    /// What Docker matches to tell "no credentials" from a failure.
    static let notFound = "credentials not found in native keychain"
    /// Longer server URLs are refused.
    static let maximumServerURLLength = 8_192
    /// A larger `store` body is refused.
    static let maximumStoreLength = 1 << 20

    /// The server URL of `get` and `erase`: one line (a final line feed
    /// allowed), not empty, no control characters.
    static func serverURL(_ data: Data) throws(CredentialInputError) -> String {
        guard data.count <= maximumServerURLLength else {
            throw CredentialInputError("docker credential input: the server URL is longer than \(maximumServerURLLength) bytes")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw CredentialInputError("docker credential input: the server URL is not UTF-8")
        }
        let url = text.trimmingWhitespaceAndNewlines()
        guard !url.isEmpty else { throw CredentialInputError("docker credential input: no server URL") }
        guard !url.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\u{7F}" }) else {
            throw CredentialInputError("docker credential input: the server URL contains a line break or control character")
        }
        return url
    }

    /// The credentials Docker asks `store` to keep: checked for shape, then ignored.
    static func storeRequest(_ data: Data) throws(CredentialInputError) -> (serverURL: String, username: String) {
        guard data.count <= maximumStoreLength else {
            throw CredentialInputError("docker credential input is larger than \(maximumStoreLength) bytes")
        }
        let value: JSONMemberValue
        do { value = try JSONMemberValue.parseStrictly([UInt8](data)) } catch {
            throw CredentialInputError("docker credential input is not JSON: \(error)")
        }
        guard let object = value.objectValue else { throw CredentialInputError("docker credential input is not a JSON object") }
        for key in ["ServerURL", "Username", "Secret"] where object[key]?.stringValue == nil {
            throw CredentialInputError("docker credential input: \(key) is missing or not a string")
        }
        return (object["ServerURL"]!.stringValue!, object["Username"]!.stringValue!)
    }

    /// The answer to `get`.
    static func credentials(serverURL: String, username: String, secret: String) -> Data {
        struct Answer: Encodable {
            let ServerURL: String
            let Username: String
            let Secret: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(Answer(ServerURL: serverURL, Username: username, Secret: secret))) ?? Data()
    }

    /// The answer to `list`.
    static func list(_ entries: [String: String]) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(entries)) ?? Data("{}".utf8)
    }
}
#endif
