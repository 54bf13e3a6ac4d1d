#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a file of credentials safely, the one implementation of the
/// CLI's profiles and ``FileCredentialStore``. Such a file holds refresh
/// tokens and private keys, so, as ssh does for its keys, it is read only
/// when it is private: a regular file (a symbolic link is not followed),
/// owned by this user, in a directory owned by this user, neither readable
/// nor writable by group or others. Anything else is refused with a
/// ``AuthFlowError/Category/storage`` error whose recovery names the fix.
package enum PrivateFile {
    /// How the errors name the file and the way to replace it.
    package struct Wording: Sendable {
        /// The kind of file, singular (`profile`).
        package var noun: String
        /// How to make a new one (`sign in again`).
        package var again: String
        /// The recovery for a symbolic link at the path given, in the
        /// caller's words (the CLI's is a shell command); nil for the engine's.
        package var linkRecovery: (@Sendable (_ path: String) -> String)?

        /// Names the file `noun`; `again` says how to make a new one.
        package init(noun: String, again: String, linkRecovery: (@Sendable (_ path: String) -> String)? = nil) {
            self.noun = noun
            self.again = again
            self.linkRecovery = linkRecovery
        }

        /// The wording of ``FileCredentialStore``.
        package static let credentialFile = Wording(noun: "credential file", again: "sign in again")
    }

    /// The bytes of the private file at `url`, at most `maximumSize` of
    /// them; nil when it or its directory does not exist.
    package static func read(_ url: URL, maximumSize: Int = 1 << 20, wording: Wording = .credentialFile) throws -> Data? {
        let directory = url.deletingLastPathComponent().path
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("cannot open the directory \(directory)")
        }
        defer { close(directoryFD) }
        try checkPrivate(directoryFD, path: directory, directory: true, wording: wording)
        // O_NONBLOCK: a FIFO put in the profile's place must not block the open.
        let fd = openat(directoryFD, url.lastPathComponent, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP:
                throw AuthFlowError(
                    .storage, "\(url.path) is a symbolic link, and \(wording.noun)s are not read through links",
                    recovery: wording.linkRecovery?(url.path)
                        ?? "Put the \(wording.noun) itself at \(url.path), not a link to it, readable by this user only.")
            default: throw failure("cannot open \(url.path)")
            }
        }
        defer { close(fd) }
        try checkPrivate(fd, path: url.path, directory: false, wording: wording)
        return try readAll(fd, path: url.path, maximumSize: maximumSize, wording: wording)
    }

    /// Creates the directory of `url` (mode 0700) when missing and repairs
    /// its mode when group or others may use it; refuses a directory owned
    /// by another user.
    package static func prepareDirectory(of url: URL, wording: Wording = .credentialFile) throws {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AuthFlowError(.storage, "cannot create the directory \(directory.path)", underlyingError: error)
        }
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("cannot open the directory \(directory.path)") }
        defer { close(fd) }
        let info = try status(fd, path: directory.path)
        try checkOwner(info, path: directory.path, wording: wording)
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o700) != 0 {
            throw failure("cannot make \(directory.path) private (chmod 700)")
        }
    }

    /// Refuses `fd` unless it is a regular file (or a directory), owned by
    /// this user, with no permission for group or others.
    private static func checkPrivate(_ fd: Int32, path: String, directory: Bool, wording: Wording) throws {
        let info = try status(fd, path: path)
        let kind = info.st_mode & S_IFMT
        guard kind == (directory ? S_IFDIR : S_IFREG) else {
            throw AuthFlowError(
                .storage, "\(path) is not a \(directory ? "directory" : "regular file")",
                recovery: "Remove \(path) and \(wording.again).")
        }
        try checkOwner(info, path: path, wording: wording)
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            let wanted = directory ? "700" : "600"
            throw AuthFlowError(
                .storage,
                "\(path) is accessible by other users (mode \(String(mode, radix: 8))); it holds credentials, so it is not used",
                recovery: "Make it private: chmod \(wanted) \(path)")
        }
    }

    private static func checkOwner(_ info: stat, path: String, wording: Wording) throws {
        guard info.st_uid == geteuid() else {
            throw AuthFlowError(
                .storage, "\(path) belongs to another user (uid \(info.st_uid)), so it is not used",
                recovery: "Use a \(wording.noun) of your own, or take this one over: chown \(geteuid()) \(path)")
        }
    }

    private static func status(_ fd: Int32, path: String) throws -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot inspect \(path)") }
        return info
    }

    private static func readAll(_ fd: Int32, path: String, maximumSize: Int, wording: Wording) throws -> Data {
        var data = Data()
        let stream = DescriptorStream(descriptor: fd)
        while true {
            let chunk: [UInt8]
            do { chunk = try stream.read(upToCount: 16_384) } catch { throw StorageError.posix("cannot read \(path)", code: error.errno) }
            if chunk.isEmpty { return data }
            data.append(contentsOf: chunk)
            guard data.count <= maximumSize else { throw AuthFlowError(.storage, "\(path) is larger than a \(wording.noun) can be") }
        }
    }

    /// A storage error with the reason `errno` gives, which it keeps as its underlying error.
    private static func failure(_ message: String) -> AuthFlowError {
        StorageError.posix(message)
    }
}
