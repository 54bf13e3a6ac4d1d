#if CLI // the CLI package trait
import Foundation

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
                data.first == UInt8(ascii: "\n") || data.range(of: Data("\n\n".utf8)) != nil
                    || data.range(of: Data("\n\r\n".utf8)) != nil || data.starts(with: Data("\r\n".utf8))
            {
                return data
            }
            let chunk: Data?
            do { chunk = try FileHandle.standardInput.availableOrBlocking(upToCount: 65_536) } catch {
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

extension FileHandle {
    /// What one `read(2)` returns (at most `count` bytes; empty at the end):
    /// unlike `read(upToCount:)`, it does not wait for `count` bytes.
    fileprivate func availableOrBlocking(upToCount count: Int) throws -> Data? {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let read = buffer.withUnsafeMutableBytes { Foundation.read(fileDescriptor, $0.baseAddress, count) }
            if read < 0, errno == EINTR { continue }
            guard read >= 0 else { throw CocoaError(.fileReadUnknown) }
            return Data(buffer[0..<read])
        }
    }
}
#endif
