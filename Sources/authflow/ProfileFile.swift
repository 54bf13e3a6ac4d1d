#if CLI // the CLI package trait
import AuthFlow
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading a profile file safely. A profile holds the refresh token and the
/// DPoP private key, so, as ssh does for its keys, it is read only when it is
/// private: a regular file (a symbolic link is not followed), owned by this
/// user, in a directory owned by this user, neither readable nor writable by
/// group or others. Anything else is refused with an error that names the fix.
enum ProfileFile {
    /// Larger profile files are refused (a profile is a few kilobytes).
    static let maximumSize = 1 << 20

    /// The bytes of the profile file at `url`; nil when it or its directory does not exist.
    static func read(_ url: URL) throws -> Data? {
        let directory = url.deletingLastPathComponent().path
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryFD >= 0 else {
            if errno == ENOENT { return nil }
            throw failure("cannot open the directory \(directory)")
        }
        defer { close(directoryFD) }
        try checkPrivate(directoryFD, path: directory, directory: true)
        // O_NONBLOCK: a FIFO put in the profile's place must not block the open.
        let fd = openat(directoryFD, url.lastPathComponent, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return nil
            case ELOOP:
                throw AuthFlowError(
                    .storage, "\(url.path) is a symbolic link, and profiles are not read through links",
                    recovery:
                        "Put the profile itself there: cp --remove-destination \"$(readlink -f \(url.path))\" \(url.path) && chmod 600 \(url.path)"
                )
            default: throw failure("cannot open \(url.path)")
            }
        }
        defer { close(fd) }
        try checkPrivate(fd, path: url.path, directory: false)
        return try readAll(fd, path: url.path)
    }

    /// Creates the profile directory (mode 0700) when missing and repairs its
    /// mode when group or others may use it; refuses a directory owned by another user.
    static func prepareDirectory(of url: URL) throws {
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
        try checkOwner(info, path: directory.path)
        if info.st_mode & 0o077 != 0, fchmod(fd, 0o700) != 0 {
            throw failure("cannot make \(directory.path) private (chmod 700)")
        }
    }

    /// Refuses `fd` unless it is a regular file (or a directory), owned by
    /// this user, with no permission for group or others.
    private static func checkPrivate(_ fd: Int32, path: String, directory: Bool) throws {
        let info = try status(fd, path: path)
        let kind = info.st_mode & S_IFMT
        guard kind == (directory ? S_IFDIR : S_IFREG) else {
            throw AuthFlowError(
                .storage, "\(path) is not a \(directory ? "directory" : "regular file")",
                recovery: "Remove \(path) and sign in again with authflow login.")
        }
        try checkOwner(info, path: path)
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            let wanted = directory ? "700" : "600"
            throw AuthFlowError(
                .storage,
                "\(path) is accessible by other users (mode \(String(mode, radix: 8))); it holds credentials, so it is not used",
                recovery: "Make it private: chmod \(wanted) \(path)")
        }
    }

    private static func checkOwner(_ info: stat, path: String) throws {
        guard info.st_uid == geteuid() else {
            throw AuthFlowError(
                .storage, "\(path) belongs to another user (uid \(info.st_uid)), so it is not used",
                recovery: "Use a profile of your own, or take this one over: chown \(geteuid()) \(path)")
        }
    }

    private static func status(_ fd: Int32, path: String) throws -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure("cannot inspect \(path)") }
        return info
    }

    private static func readAll(_ fd: Int32, path: String) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            // read(2) writes through a raw pointer, bounded by the count; VersionedFile decodes the bytes (fuzzed: Fuzz/profile.swift).
            let count = buffer.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read \(path)")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
            guard data.count <= maximumSize else { throw AuthFlowError(.storage, "\(path) is larger than a profile can be") }
        }
    }

    // The libc read(2) signature, raw pointer and all (a syscall boundary).
    private static func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(fd, buffer, count)
        #else
        Darwin.read(fd, buffer, count)
        #endif
    }

    /// A storage error with the reason `errno` gives.
    private static func failure(_ message: String) -> AuthFlowError {
        AuthFlowError(.storage, "\(message): \(String(cString: strerror(errno)))")
    }
}
#endif
