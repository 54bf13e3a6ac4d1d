import Dispatch

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

/// An exclusive advisory lock (`flock`) on a lock file, shared by every
/// process that uses the same path. The lock file is separate from the data
/// file, because the data file is replaced by rename on every save.
///
/// Waiting is bounded by ``timeout`` and honours task cancellation: a lock
/// held by a hung process is a ``AuthFlowError/Category/timeout`` error that
/// names ``name``, never an endless wait.
package struct FileLock: Sendable {
    /// The lock file.
    public let url: URL
    /// How long ``withLock(_:)`` waits for another holder, in seconds.
    public let timeout: TimeInterval
    /// What the lock protects, as errors name it (a profile, a file).
    public let name: String

    /// A lock on `url` (created with mode 0600 when missing), waited for at
    /// most `timeout` seconds; `name` defaults to the file's path.
    public init(url: URL, timeout: TimeInterval = 30, name: String? = nil) {
        self.url = url
        self.timeout = timeout
        self.name = name ?? url.path
    }

    /// Runs `body` holding the lock.
    ///
    /// - Throws: ``AuthFlowError/Category/timeout`` when the lock is not had
    ///   within ``timeout``; ``AuthFlowError/Category/cancelled`` when the
    ///   task is cancelled while waiting; ``AuthFlowError/Category/storage``
    ///   when the lock file cannot be created or locked.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        _ = try AtomicFile.createDirectory(of: url)
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw StorageError.posix("cannot open the lock file \(url.path)") }
        defer { close(fd) }
        try await acquire(fd)
        defer { _ = flock(fd, LOCK_UN) }
        return try await body()
    }

    /// Polls a non-blocking `flock` with a growing pause (1 ms up to 20 ms),
    /// so the wait never blocks a thread and stops on timeout or cancellation.
    private func acquire(_ fd: Int32) async throws {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(timeout, 0) * 1e9)
        var pause: UInt64 = 1_000_000
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR || code == EAGAIN else {
                throw StorageError.posix("cannot lock \(url.path)", code: code)
            }
            if DispatchTime.now().uptimeNanoseconds >= deadline {
                throw AuthFlowError(
                    .timeout, "\(name) is locked by another process (waited \(Self.seconds(timeout)) s)",
                    recovery: "Another authflow process or app holds \(url.path); wait for it to finish or stop it.")
            }
            do {
                try await Task.sleep(nanoseconds: pause)
            } catch {
                throw AuthFlowError(.cancelled, "cancelled while waiting for the lock on \(name)")
            }
            pause = min(pause * 2, 20_000_000)
        }
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

/// `storage` errors that keep the system's `errno`.
enum StorageError {
    /// A `storage` error for the failed call, with `errno` (or `code`) as its underlying error.
    static func posix(_ message: String, code: Int32 = errno) -> AuthFlowError {
        let underlying = POSIXErrorCode(rawValue: code).map { POSIXError($0) }
        return AuthFlowError(.storage, "\(message): \(String(cString: strerror(code)))", underlyingError: underlying)
    }
}
