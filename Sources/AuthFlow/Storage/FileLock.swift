import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive advisory lock (`flock`) on a lock file, shared by every
/// process that uses the same path. The lock file is separate from the data
/// file, because the data file is replaced by rename on every save.
public struct FileLock: Sendable {
    /// The lock file.
    public let url: URL

    /// A lock on `url` (created with mode 0600 when missing).
    public init(url: URL) {
        self.url = url
    }

    /// Runs `body` holding the lock. Waiting for the lock happens on a
    /// background thread, so no cooperative thread is blocked.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw AuthFlowError(.configuration, "cannot create the directory \(url.deletingLastPathComponent().path)")
        }
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AuthFlowError(.configuration, "cannot open lock file \(url.path) (errno \(errno))") }
        defer { close(fd) }
        try await FileLock.acquire(fd, path: url.path)
        defer { _ = flock(fd, LOCK_UN) }
        return try await body()
    }

    private static func acquire(_ fd: Int32, path: String) async throws {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                var result: Int32
                repeat { result = flock(fd, LOCK_EX) } while result != 0 && errno == EINTR
                if result == 0 {
                    continuation.resume()
                } else {
                    continuation.resume(throwing: AuthFlowError(.configuration, "cannot lock \(path) (errno \(errno))"))
                }
            }
        }
    }
}
