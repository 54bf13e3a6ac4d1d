#if CLI // the CLI package trait
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The attributes git sends a credential helper and reads back
/// (gitcredentials(7), "CUSTOM HELPERS"; git-credential(1), "INPUT/OUTPUT
/// FORMAT"): one `key=value` per line, ended by a blank line or the end of
/// input.
///
/// Reading is strict where a mistake could send a token to the wrong place
/// and lenient where git may grow: unknown keys are kept (and ignored by
/// the helper), keys ending in `[]` (`capability[]`, `wwwauth[]`) may
/// repeat, any other repeated key is refused (which `host` would the answer
/// be for?), and so are lines without `=`, NUL bytes, lines over
/// ``maximumLineLength`` and input over ``maximumInputLength``. Errors never
/// quote a value: a value may be a password.
struct GitCredentialMessage: Equatable {
    /// Longer lines are refused (git's own values are far shorter).
    static let maximumLineLength = 65_536
    /// More input is refused.
    static let maximumInputLength = 1 << 20

    /// Attributes in the order received, repeats of `[]` keys included.
    private(set) var attributes: [(key: String, value: String)] = []

    init(_ attributes: [(key: String, value: String)] = []) { self.attributes = attributes }

    static func == (a: GitCredentialMessage, b: GitCredentialMessage) -> Bool {
        a.attributes.map(\.key) == b.attributes.map(\.key) && a.attributes.map(\.value) == b.attributes.map(\.value)
    }

    /// The single value of `key`, if present.
    subscript(key: String) -> String? { attributes.first { $0.key == key }?.value }

    /// Parses git's input (bytes up to the end of input; reading stops at the first blank line).
    static func parse(_ data: Data) throws(CredentialInputError) -> GitCredentialMessage {
        guard data.count <= maximumInputLength else {
            throw CredentialInputError("git credential input is larger than \(maximumInputLength) bytes")
        }
        var message = GitCredentialMessage()
        var seen = Set<String>()
        var lineNumber = 0
        for rawLine in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = rawLine
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.isEmpty { break } // the end of the attributes (or of the input)
            guard line.count <= maximumLineLength else {
                throw CredentialInputError("git credential input: line \(lineNumber) is longer than \(maximumLineLength) bytes")
            }
            guard !line.contains(0) else { throw CredentialInputError("git credential input: line \(lineNumber) contains a NUL byte") }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")), equals != line.startIndex else {
                throw CredentialInputError("git credential input: line \(lineNumber) is not key=value")
            }
            guard let key = String(validating: line[..<equals], as: UTF8.self),
                let value = String(validating: line[line.index(after: equals)...], as: UTF8.self)
            else {
                throw CredentialInputError("git credential input: line \(lineNumber) is not UTF-8")
            }
            guard key.hasSuffix("[]") || seen.insert(key).inserted else {
                throw CredentialInputError("git credential input: the attribute \(TerminalText.field(key)) is given twice")
            }
            message.attributes.append((key, value))
        }
        return message
    }

    /// The answer's text: `key=value` lines. A value with a line feed or NUL
    /// cannot be written in this format and is refused (it would forge
    /// another attribute).
    func serialized() throws(CredentialInputError) -> String {
        var text = ""
        for (key, value) in attributes {
            guard !key.contains(where: { $0 == "\n" || $0 == "=" || $0 == "\0" }),
                !value.contains(where: { $0 == "\n" || $0 == "\0" || $0 == "\r\n" || $0 == "\r" })
            else {
                throw CredentialInputError("the \(key) attribute cannot be written to git: it contains a line break or NUL")
            }
            text += "\(key)=\(value)\n"
        }
        return text
    }
}

/// Input on a credential protocol (git's attributes, Docker's server URL or
/// JSON, kubectl's `KUBERNETES_EXEC_INFO`) that this helper refuses. Its
/// message never quotes a secret.
struct CredentialInputError: Error, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
#endif
