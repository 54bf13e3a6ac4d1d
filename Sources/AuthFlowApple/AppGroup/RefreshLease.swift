import AuthFlow
package import Foundation

/// Cross-process turn-taking for an app and its extensions that share one
/// session, without holding a file lock while the process can be suspended.
///
/// An app suspended while it holds a file lock in an app-group container is
/// killed by the system (`0xdead10cc`), and a refresh is network I/O that
/// can outlast the app's time in the foreground. So the lock file is held
/// only around a read-compare-write of a small *lease* file — no suspension
/// point, microseconds — and the refresh runs outside it:
///
/// 1. take the lease: under the lock, if no unexpired lease is recorded,
///    write this holder's id and an expiry ``duration`` ahead; otherwise
///    release the lock and poll again (no lock held while waiting);
/// 2. run the body (the refresh, which reads the store first and uses a
///    result another process saved meanwhile);
/// 3. give the lease back (under the lock, only if it is still ours).
///
/// A holder that is suspended or killed mid-refresh blocks the others for
/// at most ``duration``, after which its lease is taken over. See the
/// "Sharing a session with app extensions" article for what that means for
/// a rotating refresh token.
package struct RefreshLease: Sendable {
    /// The lease file.
    package let url: URL
    /// How long a lease lasts: longer than one refresh with its retry.
    package let duration: TimeInterval
    /// How long to wait for another holder before giving up.
    package let waitLimit: TimeInterval
    /// The default wait: 20 seconds. A live holder normally gives the lease
    /// back within one refresh (a second or two); waiting for a holder that
    /// was suspended mid-refresh (up to ``duration``) would outlast the time
    /// an extension is given — a widget's timeline reload, a share
    /// extension's sheet — so the wait ends first with a `timeout`, and the
    /// caller shows what it has. Extensions with a tighter budget set
    /// ``KeychainCredentialStore/refreshWaitLimit`` lower.
    package static let defaultWaitLimit: TimeInterval = 20
    private let now: @Sendable () -> Date
    private let lock: FileLock

    /// A lease kept in `url` (its directory is created when missing).
    package init(
        url: URL, duration: TimeInterval = 75, waitLimit: TimeInterval = RefreshLease.defaultWaitLimit,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.url = url
        self.duration = duration
        self.waitLimit = waitLimit
        self.now = now
        lock = FileLock(url: url.appendingPathExtension("lock"), timeout: 5, name: "the app group's session lock")
    }

    /// Runs `body` holding the lease (not a file lock).
    ///
    /// - Throws: ``AuthFlowError/Category/timeout`` when another holder keeps
    ///   a live lease beyond ``waitLimit``; `cancelled` when the task is cancelled while waiting.
    package func withLease<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let holder = UUID().uuidString
        let deadline = now().addingTimeInterval(waitLimit)
        while try await !take(holder) {
            if now() >= deadline {
                throw AuthFlowError(
                    .timeout, "another process of the app group kept the session's refresh lease",
                    recovery: "Show the data already loaded and try again later.", remedy: .allowMoreTime)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        do {
            let value = try await body()
            try? await giveBack(holder)
            return value
        } catch {
            try? await giveBack(holder)
            throw error
        }
    }

    /// Records `holder` as the lease's holder unless a live lease is recorded.
    private func take(_ holder: String) async throws -> Bool {
        let url = url
        let now = now()
        let duration = duration
        return try await lock.withLock {
            if let lease = Lease.read(url), lease.expiry > now, lease.holder != holder { return false }
            try Lease(holder: holder, expiry: now.addingTimeInterval(duration)).write(to: url)
            return true
        }
    }

    /// Removes the lease if `holder` still holds it.
    private func giveBack(_ holder: String) async throws {
        let url = url
        try await lock.withLock {
            if Lease.read(url)?.holder == holder { try? FileManager.default.removeItem(at: url) }
        }
    }
}

/// The lease file's content: `HOLDER EXPIRY` (seconds since 1970).
struct Lease: Equatable {
    let holder: String
    let expiry: Date

    static func read(_ url: URL) -> Lease? {
        guard let data = try? Data(contentsOf: url), data.count < 256 else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: " ")
        guard parts.count == 2, let seconds = Double(parts[1].trimmingCharacters(in: .whitespacesAndNewlines)),
            seconds.isFinite
        else { return nil }
        return Lease(holder: String(parts[0]), expiry: Date(timeIntervalSince1970: seconds))
    }

    func write(to url: URL) throws {
        try Data("\(holder) \(expiry.timeIntervalSince1970)\n".utf8).write(to: url, options: .atomic)
    }
}
