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

/// Crash-safe file replacement for credential files: the data goes to a new
/// temporary file (mode 0600) in the same directory, which is fsynced and
/// renamed over the target; then the directory is fsynced. A reader sees the
/// old file or the new one, never a torn one.
///
/// A temporary file's name carries the writer's process id
/// (`.NAME.<pid>.<uuid>.tmp`). A writer that was killed before its rename
/// leaves its temporary file behind; the next write to the same target
/// removes every such file whose process no longer exists.
package enum AtomicFile {
    /// Creates the directory `url` lies in (mode 0700) when missing, and returns it.
    package static func createDirectory(of url: URL) throws -> URL {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw AuthFlowError(.storage, "cannot create the directory \(directory.path)", underlyingError: error)
        }
        return directory
    }

    /// Writes `data` to `url` atomically with mode 0600, creating the
    /// directory with mode 0700 when missing.
    public static func write(_ data: Data, to url: URL) throws {
        let directory = try createDirectory(of: url)
        removeAbandonedTemporaries(of: url)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UUID().uuidString).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.posix("cannot create a file in \(directory.path)") }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        do {
            do { try DescriptorStream(descriptor: fd).write(data) } catch {
                throw StorageError.posix("cannot write \(temporary.path)", code: error.errno)
            }
            guard fsync(fd) == 0 else { throw StorageError.posix("cannot sync \(temporary.path)") }
            close(fd)
            closed = true
            guard rename(temporary.path, url.path) == 0 else {
                throw StorageError.posix("cannot replace \(url.path)")
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
        let directoryFD = open(directory.path, O_RDONLY | O_CLOEXEC)
        if directoryFD >= 0 {
            _ = fsync(directoryFD)
            close(directoryFD)
        }
    }
}

extension AtomicFile {
    /// Deletes the temporary files of `url` left by writers that no longer
    /// run (killed between creating and renaming them). A file whose process
    /// still exists, or whose name carries no process id, is left alone.
    static func removeAbandonedTemporaries(of url: URL) {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
            guard let pidText = middle.split(separator: ".", maxSplits: 1).first, let pid = pid_t(pidText), pid > 0,
                pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink(directory.appendingPathComponent(name).path)
        }
    }
}
