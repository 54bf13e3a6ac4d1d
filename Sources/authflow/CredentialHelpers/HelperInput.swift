#if CLI // the CLI package trait
import AuthFlow
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a credential helper reads from its client, bounded.
enum HelperInput {
    /// Standard input up to its end; more than `limit` bytes is refused
    /// (reading stops there, so a client that never stops writing cannot
    /// make the helper grow without bound).
    /// With `untilBlankLine`, reading also stops after an empty line (git's
    /// end of attributes), so a client that keeps the pipe open is not waited for.
    static func standardInput(limit: Int, what: String, untilBlankLine: Bool = false) throws(CredentialInputError) -> Data {
        var data = Data()
        while true {
            if untilBlankLine,
                data.first == UInt8(ascii: "\n") || data.firstRange(of: Array("\n\n".utf8)) != nil
                    || data.firstRange(of: Array("\n\r\n".utf8)) != nil || data.starts(with: Array("\r\n".utf8))
            {
                return data
            }
            let chunk: [UInt8]
            do { chunk = try StandardStream.input.read(upToCount: 65_536) } catch {
                throw CredentialInputError("\(what): cannot read standard input")
            }
            guard !chunk.isEmpty else { return data }
            data.append(contentsOf: chunk)
            guard data.count <= limit else { throw CredentialInputError("\(what) is larger than \(limit) bytes") }
        }
    }

    /// The environment variable `name`, when set.
    static func environment(_ name: String) -> String? { ProfileLocation.environment(name) }
}
#endif
