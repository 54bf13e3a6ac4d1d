import AuthFlowTestSupport
import Foundation
import Testing

@testable import AuthFlow

/// `FileLock`: a bounded wait that honours cancellation, and `storage` errors that keep errno.
@Suite("FileLock and storage errors")
struct FileLockTests {
    /// Holds `lock` until the returned task is cancelled or 5 s pass.
    static func hold(_ lock: FileLock) async throws -> Task<Void, any Error> {
        let held = Locked(false)
        let task = Task {
            try await lock.withLock {
                held.withLock { $0 = true }
                try? await Task.sleep(nanoseconds: 5_000_000_000)
            }
        }
        for _ in 0..<500 where !held.current { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(held.current)
        return task
    }

    @Test("a lock held elsewhere is a timeout error naming the profile, after the configured wait")
    func timeout() async throws {
        let file = FileCredentialStoreTests.temporaryFile().appendingPathExtension("lock")
        let holder = try await Self.hold(FileLock(url: file))
        defer { holder.cancel() }
        let started = Date()
        let error = await expectError(.timeout) { try await FileLock(url: file, timeout: 0.2, name: "profile work").withLock {} }
        #expect(error?.message.contains("profile work") == true)
        #expect(Date().timeIntervalSince(started) < 3)
    }

    @Test("cancelling a waiter ends its wait with cancelled")
    func cancellation() async throws {
        let file = FileCredentialStoreTests.temporaryFile().appendingPathExtension("lock")
        let holder = try await Self.hold(FileLock(url: file))
        defer { holder.cancel() }
        let waiter = Task { try await FileLock(url: file, timeout: 60).withLock {} }
        try await Task.sleep(nanoseconds: 50_000_000)
        waiter.cancel()
        await expectError(.cancelled) { try await waiter.value }
    }

    @Test("the lock is had again once released")
    func released() async throws {
        let file = FileCredentialStoreTests.temporaryFile().appendingPathExtension("lock")
        let holder = try await Self.hold(FileLock(url: file))
        holder.cancel()
        _ = try? await holder.value
        #expect(try await FileLock(url: file, timeout: 1).withLock { 42 } == 42)
    }

    @Test("file-system failures are storage errors that keep errno")
    func storageErrors() async throws {
        let blocker = FileCredentialStoreTests.temporaryFile()
        try FileManager.default.createDirectory(at: blocker.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: blocker)
        // A path below a regular file: every call fails with ENOTDIR.
        let store = FileCredentialStore(url: blocker.appendingPathComponent("profile.json"))
        let load = await expectError(.storage) { try await store.load() }
        #expect((load?.underlyingError as? POSIXError)?.code == .ENOTDIR)
        let delete = await expectError(.storage) { try await store.delete() }
        #expect((delete?.underlyingError as? POSIXError)?.code == .ENOTDIR)
        let write = expectError(.storage) { try AtomicFile.write(Data(), to: blocker.appendingPathComponent("x/y.json")) }
        #expect(write?.underlyingError != nil)
    }
}
