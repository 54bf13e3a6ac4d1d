#if CLI // the CLI package trait
import Foundation

/// What a credential helper reads from its client, bounded.
enum HelperInput {
    /// Standard input up to its end; more than `limit` bytes is refused
    /// (reading stops there, so a client that never stops writing cannot
    /// make the helper grow without bound).
    static func standardInput(limit: Int, what: String) throws(CredentialInputError) -> Data {
        var data = Data()
        while true {
            let chunk: Data?
            do { chunk = try FileHandle.standardInput.read(upToCount: 65_536) } catch {
                throw CredentialInputError("\(what): cannot read standard input")
            }
            guard let chunk, !chunk.isEmpty else { return data }
            data.append(chunk)
            guard data.count <= limit else { throw CredentialInputError("\(what) is larger than \(limit) bytes") }
        }
    }

    /// The environment variable `name`, when set.
    static func environment(_ name: String) -> String? { ProfileLocation.environment(name) }
}
#endif
